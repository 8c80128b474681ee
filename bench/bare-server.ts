// The baseline: the least a Node HTTP server can do for a JSON answer of the same size as a search page.
import { createServer } from 'node:http';

const body = process.argv[2] ?? '{"events":[]}';
const server = createServer((req, res) => {
  req.resume();
  req.once('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
