// The JS side of benches/benches/js_client_roundtrip.rs: connect (from $AUTOMATION_ENDPOINT /
// $AUTOMATION_TOKEN), warm up, then time N find_node round trips and print the nanoseconds
// they took (connect and warm-up excluded). Usage: node bench/roundtrip.mjs N [op|raw]
// The warm-up is 300 ops ($AUTOMATION_BENCH_WARM to change it): a fresh node runs them mostly
// unoptimised, so the timed ops right after are what a short script sees; a warm-up of some
// thousands gives the steady state of a long suite (criterion warms the Rust side for seconds).
//   op   app.op('find_node', {role: 'Button', label: 'Save'})  (what a script calls)
//   raw  the connection's request() with the same pre-serialised bytes the Rust bench sends
import { connect } from '../src/index.js';

const iters = Number(process.argv[2] ?? 1000);
const mode = process.argv[3] ?? 'op';
const WARM = Number(process.env.AUTOMATION_BENCH_WARM ?? 300);
const RAW = '{"op":{"find_node":{"role":"Button","label":"Save"}}}';

const app = await connect({ waitMs: 10_000 });
const once =
  mode === 'raw'
    ? async () => {
        const r = await app.conn.request(RAW);
        if (r.status !== 'ok') throw new Error(JSON.stringify(r));
      }
    : () => app.op('find_node', { role: 'Button', label: 'Save' });
for (let i = 0; i < WARM; i += 1) await once();
const t0 = process.hrtime.bigint();
for (let i = 0; i < iters; i += 1) await once();
const t1 = process.hrtime.bigint();
process.stdout.write(`${t1 - t0}\n`);
await app.close();
