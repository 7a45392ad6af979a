// The worker thread that runs `transform.javascript` (see js-sandbox.ts). Plain JavaScript, not TypeScript: a
// worker is started from a file by Node itself, outside tsx and vitest's module transforms.
//
// Each script runs in a fresh QuickJS runtime (WebAssembly): no `process`, `require`, file system, network or timers,
// a memory limit, a stack limit and a deadline checked while the interpreter runs. A native operation that runs long
// without reaching the interpreter's checks is stopped from outside: the main thread terminates this worker.
import { parentPort } from 'node:worker_threads';
import { getQuickJS, shouldInterruptAfterDeadline } from 'quickjs-emscripten';

// `_` as the reference's JavaScript has it (otto ships underscore): the functions its manifests use, written here.
const PRELUDE = `
(function (g) {
  var input = JSON.parse(g.__input);
  delete g.__input;
  for (var k in input) g[k] = input[k];
  var vals = function (o) { return Array.isArray(o) ? o : o == null ? [] : Object.keys(o).map(function (k) { return o[k]; }); };
  var fn = function (f) {
    if (typeof f === 'function') return f;
    if (typeof f === 'string') return function (o) { return o == null ? undefined : o[f]; };
    if (f && typeof f === 'object') return function (o) { return Object.keys(f).every(function (k) { return o != null && o[k] === f[k]; }); };
    return function (o) { return o; };
  };
  var each = function (o, f) {
    if (Array.isArray(o)) o.forEach(function (v, i) { f(v, i, o); });
    else if (o != null) Object.keys(o).forEach(function (k) { f(o[k], k, o); });
    return o;
  };
  var _ = {
    each: each, forEach: each,
    map: function (o, f) { var out = []; f = fn(f); each(o, function (v, k) { out.push(f(v, k, o)); }); return out; },
    filter: function (o, f) { f = fn(f); return vals(o).filter(function (v, i) { return f(v, i, o); }); },
    reject: function (o, f) { f = fn(f); return vals(o).filter(function (v, i) { return !f(v, i, o); }); },
    find: function (o, f) { f = fn(f); return vals(o).find(function (v, i) { return f(v, i, o); }); },
    every: function (o, f) { f = fn(f); return vals(o).every(function (v) { return f(v); }); },
    some: function (o, f) { f = fn(f); return vals(o).some(function (v) { return f(v); }); },
    reduce: function (o, f, acc) { return vals(o).reduce(function (a, v, i) { return f(a, v, i, o); }, acc); },
    pluck: function (o, key) { return vals(o).map(function (v) { return v == null ? undefined : v[key]; }); },
    keys: function (o) { return o == null ? [] : Object.keys(o); },
    values: vals,
    size: function (o) { return vals(o).length; },
    first: function (o) { return vals(o)[0]; },
    last: function (o) { var v = vals(o); return v[v.length - 1]; },
    contains: function (o, x) { return vals(o).indexOf(x) >= 0; },
    uniq: function (o) { return vals(o).filter(function (v, i, a) { return a.indexOf(v) === i; }); },
    flatten: function (o) { return vals(o).reduce(function (a, v) { return a.concat(Array.isArray(v) ? _.flatten(v) : [v]); }, []); },
    sortBy: function (o, f) { f = fn(f); return vals(o).slice().sort(function (a, b) { var x = f(a), y = f(b); return x < y ? -1 : x > y ? 1 : 0; }); },
    groupBy: function (o, f) { f = fn(f); var out = {}; vals(o).forEach(function (v) { var k = f(v); (out[k] = out[k] || []).push(v); }); return out; },
    countBy: function (o, f) { f = fn(f); var out = {}; vals(o).forEach(function (v) { var k = f(v); out[k] = (out[k] || 0) + 1; }); return out; },
    pick: function (o, ks) { var out = {}; (Array.isArray(ks) ? ks : [].slice.call(arguments, 1)).forEach(function (k) { if (o && k in o) out[k] = o[k]; }); return out; },
    omit: function (o, ks) { var drop = Array.isArray(ks) ? ks : [].slice.call(arguments, 1); var out = {}; for (var k in o) if (drop.indexOf(k) < 0) out[k] = o[k]; return out; },
    extend: function (o) { for (var i = 1; i < arguments.length; i++) for (var k in arguments[i]) o[k] = arguments[i][k]; return o; },
    isEmpty: function (o) { return vals(o).length === 0; },
    isArray: Array.isArray,
    isString: function (o) { return typeof o === 'string'; },
    isNumber: function (o) { return typeof o === 'number'; },
  };
  _.contains = _.includes = _.contains;
  _.collect = _.map; _.select = _.filter; _.detect = _.find; _.all = _.every; _.any = _.some; _.inject = _.foldl = _.reduce;
  g._ = _;
})(globalThis);
`;

const quickjs = getQuickJS();

/** Runs one script; returns its completion value as text (a string as is, anything else as JSON) or an error. */
function run(QuickJS, { code, input, memoryBytes, timeMs, maxOutput }) {
  const rt = QuickJS.newRuntime();
  rt.setMemoryLimit(memoryBytes);
  rt.setMaxStackSize(256 * 1024);
  rt.setInterruptHandler(shouldInterruptAfterDeadline(Date.now() + timeMs));
  const vm = rt.newContext();
  try {
    const text = vm.newString(input);
    vm.setProp(vm.global, '__input', text);
    text.dispose();
    const prelude = vm.evalCode(PRELUDE, 'prelude.js');
    if (prelude.error) {
      const e = vm.dump(prelude.error);
      prelude.error.dispose();
      return { error: explain(e, memoryBytes, timeMs) };
    }
    prelude.value.dispose();
    const r = vm.evalCode(code, 'transform.js');
    if (r.error) {
      const e = vm.dump(r.error);
      r.error.dispose();
      return { error: explain(e, memoryBytes, timeMs) };
    }
    let out;
    if (vm.typeof(r.value) === 'string') out = vm.getString(r.value);
    else {
      // JSON.stringify inside the sandbox: the value's own toJSON and getters run there, under its limits
      const JSONh = vm.getProp(vm.global, 'JSON');
      const stringify = vm.getProp(JSONh, 'stringify');
      const json = vm.callFunction(stringify, JSONh, r.value);
      stringify.dispose();
      JSONh.dispose();
      if (json.error) {
        const e = vm.dump(json.error);
        json.error.dispose();
        r.value.dispose();
        return { error: explain(e, memoryBytes, timeMs) };
      }
      out = vm.typeof(json.value) === 'string' ? vm.getString(json.value) : '';
      json.value.dispose();
    }
    r.value.dispose();
    if (out.length > maxOutput) return { error: `javascript returned ${out.length} characters, more than ${maxOutput}` };
    return { value: out };
  } finally {
    vm.dispose();
    rt.dispose();
  }
}

function explain(e, memoryBytes, timeMs) {
  const message = e && typeof e === 'object' ? `${e.name ?? 'Error'}: ${e.message ?? ''}` : String(e);
  if (/out of memory/i.test(message)) return `javascript ran out of memory (limit ${Math.round(memoryBytes / 1048576)} MiB)`;
  if (/interrupted/i.test(message)) return `javascript stopped after ${timeMs} ms (time limit)`;
  if (/stack overflow/i.test(message)) return 'javascript stopped: stack overflow (too deep recursion)';
  return `javascript: ${message}`;
}

parentPort.on('message', async (job) => {
  let reply;
  try {
    reply = run(await quickjs, job);
  } catch (err) {
    reply = { error: `javascript sandbox: ${err instanceof Error ? err.message : String(err)}` };
  }
  parentPort.postMessage({ id: job.id, ...reply });
});
