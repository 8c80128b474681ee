import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { namesAMemberTwice, repeatedMemberPath, unpairedSurrogatePath } from '../../src/server/json-members.ts';

const twice = (text: string) => (namesAMemberTwice(text, JSON.parse(text)) ? repeatedMemberPath(text) : undefined);

test('a member named twice is found by its path, in any object, however the name is escaped', () => {
  assert.is(twice('{"location":"a","location":"b"}'), 'location');
  assert.is(twice(String.raw`{"\u006cocation":"a", "location" : "b"}`), 'location');
  assert.is(twice('{"a":{"b":1,"c":[{"d":1},{"d":2,"d":3}]}}'), 'a.c[1].d');
  assert.is(twice('{"a":[[1,2],{"x":1}],"b":{"x":1,"y":{"z":[],"z":1}}}'), 'b.y.z');
  assert.is(twice('{"a":"x:y","b":{"a":"\\":"}}'), undefined, 'one name in two objects, colons and quotes inside strings');
  assert.is(twice('{"a":["a","a"],"b":"a"}'), undefined, 'strings that are values, not names');
});

test('an unpaired surrogate is found by its path; a pair is a character', () => {
  const path = (text: string) => unpairedSurrogatePath(text, JSON.parse(text));
  assert.is(path(String.raw`{"a":"\ud83d\ude00"}`), undefined);
  assert.is(path(String.raw`{"a":"x","b":{"c":["ok","\ud800"]}}`), 'b.c[1]');
  assert.is(path(String.raw`{"\udc00":1}`), '\udc00');
  assert.is(path(String.raw`{"a":"\\ud800"}`), undefined, 'an escaped backslash and the text "ud800"');
  const deep = `{"a":${'['.repeat(100_000)}"\\ud800"${']'.repeat(100_000)}}`;
  assert.ok(path(deep)?.startsWith('a[0][0]'), 'found 100 000 arrays deep, without recursion');
});

test.run();
