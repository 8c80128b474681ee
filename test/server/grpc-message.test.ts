import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeGrpcMessage, withGrpcMessageEncoded } from '../../src/server/grpc/grpc-message.ts';

test('only bytes outside printable ASCII, and %, are percent-encoded, as the gRPC protocol has it', () => {
  assert.is(encodeGrpcMessage('time_range: expected <start>/<end>, got "x"'), 'time_range: expected <start>/<end>, got "x"');
  assert.is(encodeGrpcMessage('100% café\n'), '100%25 caf%C3%A9%0A');
  assert.is(encodeGrpcMessage(''), '');
});

test('what every client decodes: decodeURI (grpc-js) and decodeURIComponent (connect-es) give the text back', () => {
  for (const text of ['a: b/c, d', '100% café ✓', 'tab\there', '#?&=+$;@']) {
    assert.is(decodeURI(encodeGrpcMessage(text)), text);
    assert.is(decodeURIComponent(encodeGrpcMessage(text)), text);
  }
});

test('a grpc-message written by connect-es (encodeURIComponent) is re-encoded; other headers are left alone', () => {
  const headers = { 'grpc-status': '3', 'grpc-message': encodeURIComponent('x: a/b, 5%') };
  assert.equal(withGrpcMessageEncoded(headers), { 'grpc-status': '3', 'grpc-message': 'x: a/b, 5%25' });
  const none = { 'content-type': 'application/grpc' };
  assert.is(withGrpcMessageEncoded(none), none);
});

test.run();
