/* rb_parallel_for: contiguous runs of tasks, one per thread, joined before return
 * (the engine leaves no thread running: ImageMagick unloads it after each call). */
#include "parallel.h"

#include <pthread.h>

#define RB_PARALLEL_MAX_THREADS 256

typedef struct {
    void (*fn)(void *user, int task);
    void *user;
    int t0, t1;
} task_run;

static void *run_tasks(void *arg)
{
    const task_run *r = arg;
    for (int t = r->t0; t < r->t1; t++)
        r->fn(r->user, t);
    return 0;
}

void rb_parallel_for(int nthreads, int ntasks, void (*fn)(void *user, int task), void *user)
{
    if (ntasks <= 0)
        return;
    int nt = nthreads < 1 ? 1 : nthreads;
    if (nt > ntasks)
        nt = ntasks;
    if (nt > RB_PARALLEL_MAX_THREADS)
        nt = RB_PARALLEL_MAX_THREADS;
    task_run runs[RB_PARALLEL_MAX_THREADS];
    pthread_t tid[RB_PARALLEL_MAX_THREADS];
    int started[RB_PARALLEL_MAX_THREADS];
    for (int i = 0; i < nt; i++) {
        runs[i].fn = fn;
        runs[i].user = user;
        runs[i].t0 = (int)((long)ntasks * i / nt);
        runs[i].t1 = (int)((long)ntasks * (i + 1) / nt);
        started[i] = 0;
    }
    for (int i = 1; i < nt; i++)
        started[i] = pthread_create(&tid[i], 0, run_tasks, &runs[i]) == 0;
    run_tasks(&runs[0]);
    for (int i = 1; i < nt; i++) {
        if (started[i])
            pthread_join(tid[i], 0);
        else
            run_tasks(&runs[i]);
    }
}
