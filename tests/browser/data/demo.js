// demo.js: the program recorded in demo.cpuprofile (see README.md) for the browser tests of
// the source tab: a few hundred samples over four functions on their own lines.
function square(i) {
  return (i * i) % 7919;
}

function work(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s += square(i);
  return s;
}

function helper(n) {
  return work(n / 2) + 1;
}

function main() {
  let total = 0;
  for (let round = 0; round < 12; round++) {
    total += work(2000000);
    total += helper(2000000);
  }
  console.log(total);
}

main();
