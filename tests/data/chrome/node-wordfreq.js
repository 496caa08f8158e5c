// A small real workload for a Node --cpu-prof recording: builds a text, counts words,
// sorts them, finds primes with a sieve and round-trips the result through JSON.
'use strict';

function makeText(words, n) {
  const out = [];
  let x = 12345;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    out.push(words[x % words.length]);
  }
  return out.join(' ');
}

function countWords(text) {
  const counts = new Map();
  for (const w of text.split(/\s+/)) {
    counts.set(w, (counts.get(w) || 0) + 1);
  }
  return counts;
}

function topWords(counts, k) {
  return [...counts.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, k);
}

function sieve(limit) {
  const composite = new Uint8Array(limit + 1);
  const primes = [];
  for (let i = 2; i <= limit; i++) {
    if (composite[i]) continue;
    primes.push(i);
    for (let j = i * i; j <= limit; j += i) composite[j] = 1;
  }
  return primes;
}

function roundTrip(value) {
  return JSON.parse(JSON.stringify(value));
}

function main() {
  const words = 'the quick brown fox jumps over a lazy dog while profilers sample stacks'.split(' ');
  let total = 0;
  for (let round = 0; round < 6; round++) {
    const text = makeText(words, 200000);
    const top = topWords(countWords(text), 5);
    const primes = sieve(400000);
    const copy = roundTrip({ top, primes: primes.slice(0, 20000) });
    total += copy.top[0][1] + copy.primes.length;
  }
  console.log('checksum', total);
}

main();
