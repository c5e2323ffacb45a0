/* A parallel loop over tasks on pthreads, for the CPU back end's image passes. */
#ifndef RB_PARALLEL_H
#define RB_PARALLEL_H

/* Runs fn(user, task) for every task in [0, ntasks) on up to nthreads threads,
 * the calling thread being one of them; tasks are split into contiguous runs.
 * A thread that cannot be started has its run done by the caller, so the loop
 * always completes. Returns when every task has run; no thread outlives it. */
void rb_parallel_for(int nthreads, int ntasks, void (*fn)(void *user, int task), void *user);

#endif
