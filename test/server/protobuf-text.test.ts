import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { BinaryWriter } from '@bufbuild/protobuf/wire';
import { EventSchema } from '../../src/gen/tms/v1/event_pb.ts';
import { useNodeTextEncoding } from '../../src/server/protobuf-text.ts';

useNodeTextEncoding();

const samples = ['', 'Paris, France', 'Zürich', '東京', '😀 rocket 🚀', 'x'.repeat(10_000), 'lone \uD800 surrogate', '\uDFFF first'];
const webEncoder = new TextEncoder();

/** The bytes protobuf-es writes with its default encoder (the WHATWG TextEncoder); proto3 leaves out "". */
function webBytes(description: string): Uint8Array {
  if (description === '') return new Uint8Array();
  return new BinaryWriter((text) => webEncoder.encode(text)).tag(2, 2).string(description).finish();
}

test('strings encode to the same bytes as with the WHATWG encoder, unpaired surrogates included', () => {
  for (const description of samples) {
    const bytes = toBinary(EventSchema, create(EventSchema, { description }));
    assert.equal(Buffer.from(bytes), Buffer.from(webBytes(description)), JSON.stringify(description.slice(0, 20)));
    assert.is(fromBinary(EventSchema, bytes).description, new TextDecoder().decode(webEncoder.encode(description)));
  }
});

test('a string field that is not UTF-8 is refused as before', () => {
  const bytes = new BinaryWriter().tag(2, 2).bytes(new Uint8Array([0x50, 0xff, 0x61])).finish();
  assert.throws(() => fromBinary(EventSchema, bytes), /not valid|invalid/i);
});

test.run();
