// a class with private methods: async ones resume from the microtask queue, so their
// frames are roots of a stack ("#load" first), synchronous ones are called from run()
class Store {
  #data = [];
  async #load(n) {
    let s = 0;
    for (let k = 0; k < 20; k++) {
      await null;
      for (let i = 0; i < n; i++) s += Math.sqrt(i) * Math.sin(i);
    }
    this.#data.push(s);
    return s;
  }
  #cleanLogs() {
    let t = 0;
    for (let i = 0; i < 400000; i++) t += (i % 7) * 1.5;
    this.#data.length = 0;
    return t;
  }
  async run() {
    let r = 0;
    for (let k = 0; k < 8; k++) {
      r += await this.#load(100000);
      r += this.#cleanLogs();
    }
    return r;
  }
}
new Store().run().then((r) => console.log(r > 0));
