/**
 * One AbortController per chat request, aborted when the shutdown deadline passes. The deadline
 * gets a single listener for all requests (not one each: thousands of streams would pile up).
 */
const live = new WeakMap<AbortSignal, Set<AbortController>>();

export function stopOnDeadline(deadline: AbortSignal): { controller: AbortController; release(): void } {
  const controller = new AbortController();
  if (deadline.aborted) {
    controller.abort();
    return { controller, release() {} };
  }
  let set = live.get(deadline);
  if (!set) {
    const controllers = new Set<AbortController>();
    deadline.addEventListener("abort", () => controllers.forEach((c) => c.abort()), { once: true });
    live.set(deadline, controllers);
    set = controllers;
  }
  set.add(controller);
  return { controller, release: () => set.delete(controller) };
}
