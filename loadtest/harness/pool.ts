/** Runs `total` jobs with at most `concurrency` in flight, starting none after `deadline`. */
export async function runPool(
  total: number,
  concurrency: number,
  deadline: number,
  job: (index: number) => Promise<void>,
): Promise<{ started: number }> {
  let next = 0;
  const worker = async () => {
    while (next < total && performance.now() < deadline) await job(next++);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, total)) }, worker));
  return { started: next };
}
