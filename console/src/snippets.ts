import { isRpcPath, effectivePath, type Draft } from './draft.ts';
import { isCredentialHeader } from './credentials.ts';
import { rpcByPath } from './services.ts';

/** `'it'\''s'`: one shell word, whatever it holds. */
const shellQuote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

const TOKEN = '$TMS_TOKEN';

function plainHeaders(draft: Draft): [string, string][] {
  return draft.headers.filter(([name]) => name.trim() !== '' && !isCredentialHeader(name));
}

/** Copies of the current request for a terminal or a program; the credential is always `$TMS_TOKEN`. */
export interface Snippet {
  label: string;
  text: string;
}

export function snippets(draft: Draft, origin: string): Snippet[] {
  return isRpcPath(draft.path) ? rpcSnippets(draft, origin) : restSnippets(draft, origin);
}

function restSnippets(draft: Draft, origin: string): Snippet[] {
  const method = draft.method.toUpperCase();
  const head = method === 'HEAD';
  // The URL the console sends to, as a browser makes it: relative to this origin, spaces and the like escaped.
  const url = new URL(draft.path, origin).href;
  // `-X HEAD` would wait for the body the length announces; `--head` reads the head alone.
  const lines = [`curl -sS ${head ? '--head' : `-X ${method}`} ${shellQuote(url)}`, `  -H "Authorization: Bearer ${TOKEN}"`];
  for (const [name, value] of plainHeaders(draft)) lines.push(`  -H ${shellQuote(`${name}: ${value}`)}`);
  if (draft.body.trim() !== '' && !head) lines.push(`  --data-raw ${shellQuote(draft.body)}`);
  const fetchUrl = new URL(effectivePath(draft).path ?? draft.path, origin).href;
  const bodyless = method === 'GET' || head;
  const headers = Object.fromEntries(plainHeaders(draft));
  const ts = [
    `const response = await fetch(${JSON.stringify(fetchUrl)}, {`,
    `  method: ${JSON.stringify(method)},`,
    `  headers: { ...${JSON.stringify(headers)}, authorization: \`Bearer \${process.env.TMS_TOKEN}\` },`,
    ...(!bodyless && draft.body.trim() !== '' ? [`  body: JSON.stringify(${draft.body.trim()}),`] : []),
    `});`,
    // A HEAD answer, or a 204, has no body to read as JSON.
    `const text = await response.text();`,
    `console.log(response.status, text === '' ? Object.fromEntries(response.headers) : JSON.parse(text));`,
  ];
  return [
    { label: 'curl', text: lines.join(' \\\n') },
    { label: 'TypeScript (fetch)', text: ts.join('\n') },
  ];
}

function rpcSnippets(draft: Draft, origin: string): Snippet[] {
  const path = draft.path.split('?')[0]!;
  const method = rpcByPath.get(path)!;
  const service = method.parent;
  const body = draft.body.trim() === '' ? '{}' : draft.body.trim();
  const compact = (() => {
    try {
      return JSON.stringify(JSON.parse(body));
    } catch {
      return body;
    }
  })();
  const host = new URL(origin).host;
  const plaintext = origin.startsWith('http:');
  const bufCurl = [
    `buf curl --protocol connect${plaintext ? ' --http2-prior-knowledge' : ''}`,
    `  -H "Authorization: Bearer ${TOKEN}"`,
    `  -d ${shellQuote(compact)}`,
    `  ${shellQuote(origin + path)}`,
  ].join(' \\\n');
  const grpcurl = [
    `grpcurl${plaintext ? ' -plaintext' : ''}`,
    `  -H "authorization: Bearer ${TOKEN}"`,
    `  -d ${shellQuote(compact)}`,
    `  ${host} ${service.typeName}/${method.name}`,
  ].join(' \\\n');
  // protoc-gen-es writes `tms/v1/timeline_service_pb.ts` for `tms/v1/timeline_service.proto` (the descriptor's name).
  const file = `${service.file.name.replace(/\.proto$/, '')}_pb.js`;
  const ts = [
    `import { createClient } from '@connectrpc/connect';`,
    `import { createConnectTransport } from '@connectrpc/connect-node';`,
    `import { fromJson } from '@bufbuild/protobuf';`,
    `import { ${service.name}, ${method.input.name}Schema } from './gen/${file}';`,
    ``,
    `const transport = createConnectTransport({`,
    `  baseUrl: ${JSON.stringify(origin)},`,
    `  httpVersion: '1.1',`,
    `  interceptors: [(next) => (req) => { req.header.set('authorization', \`Bearer \${process.env.TMS_TOKEN}\`); return next(req); }],`,
    `});`,
    `const client = createClient(${service.name}, transport);`,
    `const request = fromJson(${method.input.name}Schema, ${body});`,
    `console.log(await client.${method.localName}(request));`,
  ];
  return [
    { label: 'buf curl', text: bufCurl },
    { label: 'grpcurl', text: grpcurl },
    { label: 'TypeScript (Connect client)', text: ts.join('\n') },
  ];
}
