// The write baseline: the least a Node HTTP server can do to store a request durably. Each request becomes one
// record of a given size, stored with one synced LevelDB put, and is answered with a body of a given size.
// Usage: bench/bare-write-server.ts <data dir> <record bytes> <answer bytes>
import { createServer } from 'node:http';
import { Level } from 'level';

const [dir, recordText, answerText] = process.argv.slice(2);
const recordBytes = Number(recordText);
const answer = JSON.stringify({ stored: 'x'.repeat(Math.max(0, Number(answerText) - 14)) });
const db = new Level<string, Uint8Array>(dir!, { valueEncoding: 'view' });
await db.open();
let sequence = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('end', () => {
    const record = Buffer.alloc(recordBytes);
    Buffer.concat(chunks).copy(record);
    db.put(String(sequence++).padStart(12, '0'), record, { sync: true } as never).then(
      () => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
        res.end(answer);
      },
      () => {
        res.writeHead(500);
        res.end();
      },
    );
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => void db.close().then(() => process.exit(0))));
