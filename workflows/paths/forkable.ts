import type { RunPath } from './run-path';
import { steerable } from './steerable';

/**
 * Since the `forks` patch: a run may be a fork of a recorded one (`request.fork`, decision 102): its
 * parent is recalled, its calls made on the same inputs are the parent's, its steps carry a
 * reviewer's instructions, and its review applies the parent's decisions again. A person may also
 * prune operations and thoughts and give instructions while it runs (`steer`, decision 103). Runs
 * started before were refused a `fork` by their request's check and refuse those steers.
 */
export const forkable: RunPath = { ...steerable, inheritsFromParent: true, steersGraph: true };
