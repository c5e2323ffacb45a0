/* rb_parallel_team and rb_parallel_for (parallel.h): the engine's only
 * pthread_create. */
#include "parallel.h"

#include <pthread.h>

#define RB_PARALLEL_MAX_THREADS 256

typedef struct {
    void (*fn)(void *user, int member, int members);
    void *user;
    /* members stays 0 until every thread that could be created has been:
     * the created threads wait for it here */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int members;
} team;

typedef struct {
    team *tm;
    int member;
} team_seat;

static void *member_main(void *arg)
{
    const team_seat *seat = arg;
    team *tm = seat->tm;
    pthread_mutex_lock(&tm->mu);
    while (tm->members == 0)
        pthread_cond_wait(&tm->cv, &tm->mu);
    const int members = tm->members;
    pthread_mutex_unlock(&tm->mu);
    tm->fn(tm->user, seat->member, members);
    return 0;
}

int rb_parallel_team(int nthreads, void (*fn)(void *user, int member, int members), void *user)
{
    int nt = nthreads < 1 ? 1 : nthreads;
    if (nt > RB_PARALLEL_MAX_THREADS)
        nt = RB_PARALLEL_MAX_THREADS;
    if (nt == 1) {
        fn(user, 0, 1);
        return 1;
    }
    team tm = {fn, user, .members = 0};
    pthread_mutex_init(&tm.mu, 0);
    pthread_cond_init(&tm.cv, 0);
    team_seat seats[RB_PARALLEL_MAX_THREADS];
    pthread_t tid[RB_PARALLEL_MAX_THREADS];
    /* members are numbered without gaps: the first creation that fails ends
     * the team there */
    int members = 1;
    for (int i = 1; i < nt; i++) {
        seats[i].tm = &tm;
        seats[i].member = i;
        if (pthread_create(&tid[i], 0, member_main, &seats[i]) != 0)
            break;
        members++;
    }
    pthread_mutex_lock(&tm.mu);
    tm.members = members;
    pthread_cond_broadcast(&tm.cv);
    pthread_mutex_unlock(&tm.mu);
    fn(user, 0, members);
    for (int i = 1; i < members; i++)
        pthread_join(tid[i], 0);
    pthread_cond_destroy(&tm.cv);
    pthread_mutex_destroy(&tm.mu);
    return members;
}

typedef struct {
    void (*fn)(void *user, int task);
    void *user;
    int ntasks;
} task_list;

/* member m of n runs the m-th contiguous run of the tasks */
static void run_share(void *arg, int member, int members)
{
    const task_list *tl = arg;
    const int t0 = (int)((long)tl->ntasks * member / members);
    const int t1 = (int)((long)tl->ntasks * (member + 1) / members);
    for (int t = t0; t < t1; t++)
        tl->fn(tl->user, t);
}

void rb_parallel_for(int nthreads, int ntasks, void (*fn)(void *user, int task), void *user)
{
    if (ntasks <= 0)
        return;
    task_list tl = {fn, user, ntasks};
    rb_parallel_team(nthreads < ntasks ? nthreads : ntasks, run_share, &tl);
}
