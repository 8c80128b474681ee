// The garbage collections the soak reads from the service's /metrics, to show the collector's share of the loop delay.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { gcCounts } from '../../bench/soak/process-samples.ts';

const histogram = (kind: string, within1ms: number, within10ms: number, total: number) => `
tms_nodejs_gc_duration_seconds_bucket{le="0.001",kind="${kind}"} ${within1ms}
tms_nodejs_gc_duration_seconds_bucket{le="0.01",kind="${kind}"} ${within10ms}
tms_nodejs_gc_duration_seconds_bucket{le="0.1",kind="${kind}"} ${total}
tms_nodejs_gc_duration_seconds_bucket{le="+Inf",kind="${kind}"} ${total}
tms_nodejs_gc_duration_seconds_sum{kind="${kind}"} 0.25
tms_nodejs_gc_duration_seconds_count{kind="${kind}"} ${total}`;

test('full collections are the major count; long pauses are every kind beyond the 10-ms bucket', () => {
  const metrics = `# HELP tms_nodejs_gc_duration_seconds Garbage collection duration by kind
# TYPE tms_nodejs_gc_duration_seconds histogram${histogram('minor', 0, 36, 37)}${histogram('incremental', 12, 32, 33)}${histogram('major', 0, 8, 33)}
tms_nodejs_heap_size_used_bytes 1000`;
  assert.equal(gcCounts(metrics), { major: 33, over10ms: 1 + 1 + 25 });
});

test('a process that has not collected yet, or metrics without the histogram', () => {
  assert.equal(gcCounts(histogram('minor', 0, 0, 0)), { major: 0, over10ms: 0 });
  assert.is(gcCounts('tms_nodejs_heap_size_used_bytes 1000\n'), undefined);
});

test.run();
