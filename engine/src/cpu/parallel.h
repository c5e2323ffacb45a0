/* The engine's one way to run work on several threads (pthreads), for the CPU
 * back end's image passes and the deblur wavefront. Threads are created and
 * joined inside each call: the engine leaves no thread running (ImageMagick
 * unloads it after each call). */
#ifndef RB_PARALLEL_H
#define RB_PARALLEL_H

/* Runs fn(user, member, members) on a team of up to nthreads threads (at most
 * 256) at the same time, the calling thread being member 0. members is how
 * many threads did start (at least 1; a thread that cannot be created leaves a
 * smaller team, not an error), the same for every member and fixed before any
 * member runs, so members may wait for each other (a barrier of `members`
 * parties) and split work by member. Returns members once every member has
 * returned. */
int rb_parallel_team(int nthreads, void (*fn)(void *user, int member, int members), void *user);

/* Runs fn(user, task) for every task in [0, ntasks) on up to nthreads threads,
 * the calling thread being one of them; tasks are split into contiguous runs,
 * one per thread of the team that started. Tasks must not wait for each other
 * (a thread may run several in turn). Returns when every task has run. */
void rb_parallel_for(int nthreads, int ntasks, void (*fn)(void *user, int task), void *user);

#endif
