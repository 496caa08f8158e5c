// Allocates in a few named functions so a sampling heap profile has distinct stacks.
'use strict';
function makeStrings(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push('item-' + i + '-' + 'x'.repeat(i % 64));
  return out;
}
function makeObjects(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push({ id: i, name: 'obj' + i, tags: [i, i * 2, i * 3] });
  return out;
}
function makeBuffers(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(new Array(256).fill(i));
  return out;
}
function build(rounds) {
  const keep = [];
  for (let r = 0; r < rounds; r++) {
    keep.push(makeStrings(20000));
    keep.push(makeObjects(20000));
    keep.push(makeBuffers(2000));
  }
  return keep;
}
globalThis.kept = build(4);
console.log(kept.length);
