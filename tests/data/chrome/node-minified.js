// A small real workload whose minified form has four anonymous functions on one line (the
// callbacks of map, filter, sort and reduce), for a Node --cpu-prof recording of minified code:
// node-minified.min.js is this file through `esbuild --minify`.
'use strict';

function work(n) {
  const xs = [];
  for (let i = 0; i < n; i++) xs.push((i * 7919) % 10007);
  const mixed = xs.map(function (x) {
    let s = 0;
    for (let k = 0; k < 300; k++) s = (s + x * k) % 65521;
    return s;
  });
  const odd = xs.filter(function (x) {
    let h = x;
    for (let k = 0; k < 300; k++) h = (h * 31 + k) % 65521;
    return h & 1;
  });
  const sorted = mixed.slice().sort(function (a, b) {
    return a - b;
  });
  const sum = odd.reduce(function (acc, x) {
    let t = acc;
    for (let k = 0; k < 200; k++) t = ((t + x) ^ k) % 1000003;
    return t;
  }, 0);
  return sorted[0] + sum;
}

let total = 0;
for (let r = 0; r < 40; r++) total += work(20000);
console.log(total);
