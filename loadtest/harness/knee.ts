/**
 * Where a latency-against-rate curve bends: the Kneedle method (Satopää et al., 2011, "Finding a
 * 'Kneedle' in a Haystack") on the points of a sweep — both axes scaled to 0..1, the knee is the
 * point farthest below the straight line from the first point to the last, i.e. the last rate
 * before latency turns steeply upward. A curve whose latency never grew by GROWTH is flat: the
 * sweep did not reach a knee. Also: the highest rate whose point met every SLO.
 */

export interface CurvePoint {
  /** Requests per second: offered for a constant or Poisson rate, achieved for a closed-loop phase. */
  rate: number;
  /** The latency that bends (the harness uses TTFT p95), ms; null when nothing was measured. */
  latencyMs: number | null;
  /** The point met every SLO of the stack. */
  sloMet: boolean;
}

/** Latency must grow by at least this factor across the sweep for a knee to exist. */
export const GROWTH = 1.5;

/** The knee's rate, or null when the curve is flat, too short (under 3 points) or not measured. */
export function findKnee(points: readonly CurvePoint[]): number | null {
  const curve = points
    .filter((p): p is CurvePoint & { latencyMs: number } => p.latencyMs !== null)
    .sort((a, b) => a.rate - b.rate);
  if (curve.length < 3) return null;
  const ys = curve.map((p) => p.latencyMs);
  const [minY, maxY] = [Math.min(...ys), Math.max(...ys)];
  const [minX, maxX] = [curve[0].rate, curve.at(-1)!.rate];
  if (maxY < minY * GROWTH || maxX === minX) return null;
  let best = { rate: curve[0].rate, distance: -Infinity };
  for (const p of curve) {
    const x = (p.rate - minX) / (maxX - minX);
    const y = (p.latencyMs - minY) / (maxY - minY);
    // Below the diagonal of a convex, rising curve: x − y is largest at the knee.
    if (x - y > best.distance) best = { rate: p.rate, distance: x - y };
  }
  return best.distance > 0 ? best.rate : null;
}

/** The highest rate whose point met every SLO, or null when none did. */
export function maxSloRate(points: readonly CurvePoint[]): number | null {
  const met = points.filter((p) => p.sloMet).map((p) => p.rate);
  return met.length ? Math.max(...met) : null;
}
