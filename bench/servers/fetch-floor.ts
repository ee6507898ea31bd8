// The outbox figure's floor, in a fresh process of its own: RECEIVER_URL is sent COUNT POSTs of
// a delivery's shape with a bare `fetch`, CONCURRENCY at a time, then the process exits (1 on
// any answer but 204). Its own process, not the benchmark's: the delivering instance starts
// fresh, and a loop in the benchmark process ran on a fetch that earlier figures had warmed, so
// the floor was faster in a full run than alone and the figure measured the run's order
// (bench/README.md, "The outbox").
import { floorBody } from '../figures/outbox.ts';
import { runPool } from '../lib/pool.ts';

const url = process.env.RECEIVER_URL;
const count = Number(process.env.COUNT);
const concurrency = Number(process.env.CONCURRENCY);
if (!url || !(count > 0) || !(concurrency > 0)) {
  console.error('fetch-floor: RECEIVER_URL, COUNT and CONCURRENCY are required');
  process.exit(2);
}
await runPool(count, concurrency, async (i) => {
  const res = await fetch(`${url}/ok/floor`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'webhook-id': `msg_${i}` },
    body: floorBody(i),
  });
  await res.arrayBuffer();
  if (res.status !== 204) {
    console.error(`fetch-floor: POST answered ${res.status}`);
    process.exit(1);
  }
});
process.exit(0);
