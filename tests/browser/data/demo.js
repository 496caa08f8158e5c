// demo.js: the source named by demo.cpuprofile (a small hand-written V8 CPU profile for the
// browser tests of the source tab).
function square(i) {
  return i * i;
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
  const a = work(1000);
  const b = helper(1000);
  console.log(a + b);
}

main();
