/* The drop-order tracker (PELockDropOrder.h). In C for the thread-local storage, atomics and the
   condition variable (Swift's Atomic/Mutex need macOS 15; the package supports 13). */
#include "PELockDropOrder.h"
#include "PEStressPoints.h"    /* the runtime core's (PatchRuntime) */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct PELockDropRecord {
    uint64_t seq;     /* place in the record order */
    uint64_t start;   /* `seq` as this thread's JS began; 0: not begun in a tracked entry */
    const void *vm;   /* the VM whose lock was dropped: only records of one VM are ordered */
    const long *occupancy;   /* the VM's count of threads with an entry open (PEVMOpenEntry each) */
    bool listed;      /* in the list; a record made while its thread was alone in the VM is not */
    PELockDropRecord *previous, *next, *nextFree;
};

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
/* The records of threads inside a callback, in record order. Guarded by `mutex`. */
static PELockDropRecord *head, *tail;
static unsigned waiters;
static uint64_t waits, fallbacks, unproven;
/* The last listed record's seq: taken under `mutex` (so the list stays in seq order), read with
   acquire. A record alone in its VM reads it without taking one (Push). */
static uint64_t lastSeq;
static void (*beforePushHook)(void);

/* This thread's JS began when lastSeq was this (0 while it is in native code or untracked). */
static _Thread_local uint64_t jsStart;
static _Thread_local PELockDropRecord *freeRecords;
static pthread_key_t freeListKey;
static pthread_once_t freeListOnce = PTHREAD_ONCE_INIT;

/* At thread exit: `slot` is the thread's `freeRecords`. */
static void freeList(void *slot) {
    PELockDropRecord **list = slot;
    for (PELockDropRecord *r = *list, *next; r; r = next) { next = r->nextFree; free(r); }
    *list = NULL;
}
static void makeFreeListKey(void) { pthread_key_create(&freeListKey, freeList); }

static PELockDropRecord *allocate(void) {
    PELockDropRecord *r = freeRecords;
    if (r) { freeRecords = r->nextFree; return r; }
    pthread_once(&freeListOnce, makeFreeListKey);
    if (!pthread_getspecific(freeListKey)) pthread_setspecific(freeListKey, &freeRecords);
    r = malloc(sizeof *r);
    if (!r) abort();
    return r;
}

static void recycle(PELockDropRecord *r) {
    r->nextFree = freeRecords;
    freeRecords = r;
}

uint64_t PELockDropOrderJSBegin(void) {
    uint64_t saved = jsStart;
    jsStart = __atomic_load_n(&lastSeq, __ATOMIC_ACQUIRE);
    return saved;
}

void PELockDropOrderJSEnd(uint64_t saved) { jsStart = saved; }

/* Whether the calling thread is the only one with an entry open in the record's VM. Every
   callback runs inside an entry of its VM, so then no other thread is in a callback of that VM
   and none can be waited for. */
static bool aloneInVM(const PELockDropRecord *r) {
    return __atomic_load_n(r->occupancy, __ATOMIC_SEQ_CST) < 2 * PEVMOpenEntry;
}

PELockDropRecord *PELockDropOrderPush(const void *vm, const long *occupancy) {
    PE_STRESS_POINT();      /* JavaScriptCore has dropped its lock; the record is not made yet */
    void (*hook)(void) = __atomic_load_n(&beforePushHook, __ATOMIC_ACQUIRE);
    if (hook) hook();
    PELockDropRecord *r = allocate();
    r->start = jsStart;
    r->vm = vm;
    r->occupancy = occupancy;
    r->next = NULL;
    jsStart = 0;   /* native code now; JS it runs without a tracked entry is unproven */
    if (occupancy && aloneInVM(r)) {
        /* The usual case with a VM per thread: no list, no mutex, no atomic write. The record
           keeps its place in the order (its seq); Pop lists it there if another thread has come
           into the VM. Reading the seq instead of taking a new one (a shared atomic add per
           callback, contended between threads alone in their VMs) loses nothing: any thread
           that can later be recorded in this VM began its JS after this thread's drop (a thread
           with JS in the VM before it would have an entry open and be counted), so a `start` equal
           to this seq still proves it dropped later, and every record it makes takes a greater
           seq. Ties are with other VMs' records only, which are never ordered against it. */
        r->listed = false;
        r->seq = __atomic_load_n(&lastSeq, __ATOMIC_ACQUIRE);
        return r;
    }
    r->listed = true;
    pthread_mutex_lock(&mutex);
    for (const PELockDropRecord *earlier = tail; earlier; earlier = earlier->previous)
        if (earlier->vm == vm) { if (r->start < earlier->seq) unproven++; break; }
    r->seq = __atomic_add_fetch(&lastSeq, 1, __ATOMIC_SEQ_CST);
    r->previous = tail;
    if (tail) tail->next = r; else head = r;
    tail = r;
    pthread_mutex_unlock(&mutex);
    return r;
}

/* Whether a record after `r` has an unproven order against it: its thread's JS began before `r`
   was made (or untracked), so it may have dropped the API lock before `r`'s thread did. */
static bool unprovenAfter(const PELockDropRecord *r) {
    for (const PELockDropRecord *later = r->next; later; later = later->next)
        if (later->vm == r->vm && later->start < r->seq) return true;
    return false;
}

/* Whether a thread recorded after `r` is inside a callback of the same VM. Threads in other VMs
   hold other locks: JavaScriptCore orders nothing between them. */
static bool laterInSameVM(const PELockDropRecord *r) {
    for (const PELockDropRecord *later = r->next; later; later = later->next)
        if (later->vm == r->vm) return true;
    return false;
}

/* Puts an unlisted record at its seq's place in the list. Under `mutex`. Every record of its VM
   in the list came later (its thread was alone in the VM when it was made), so it waits for them
   as if it had been listed from the start. */
static void listInOrder(PELockDropRecord *r) {
    PELockDropRecord *before = tail;
    while (before && before->seq > r->seq) before = before->previous;
    r->previous = before;
    r->next = before ? before->next : head;
    if (r->next) r->next->previous = r; else tail = r;
    if (before) before->next = r; else head = r;
    r->listed = true;
}

void PELockDropOrderPop(PELockDropRecord *r) {
    PE_STRESS_POINT();      /* the native call is done; the wait in drop order not begun */
    if (!r->listed) {
        if (aloneInVM(r)) {
            jsStart = __atomic_load_n(&lastSeq, __ATOMIC_ACQUIRE);   /* this thread's JS resumes now */
            recycle(r);
            return;
        }
        pthread_mutex_lock(&mutex);
        listInOrder(r);
    } else {
        pthread_mutex_lock(&mutex);
    }
    if (laterInSameVM(r)) {
        waits++;
        bool bounded = false;
        struct timespec deadline;
        while (laterInSameVM(r)) {
            if (!unprovenAfter(r)) {
                /* Every later record dropped after this thread: JavaScriptCore would make this
                   thread wait for each of them too (spinning); wait for them blocked. */
                waiters++;
                pthread_cond_wait(&changed, &mutex);
                waiters--;
                continue;
            }
            if (!bounded) {
                /* CLOCK_REALTIME, the one every platform's pthread_cond_timedwait takes: a clock
                   step can only lengthen or shorten this short bound. */
                clock_gettime(CLOCK_REALTIME, &deadline);
                deadline.tv_nsec += (long)PE_LOCK_DROP_UNPROVEN_WAIT_MS * 1000000L;
                deadline.tv_sec += deadline.tv_nsec / 1000000000L;
                deadline.tv_nsec %= 1000000000L;
                bounded = true;
            }
            waiters++;
            int status = pthread_cond_timedwait(&changed, &mutex, &deadline);
            waiters--;
            if (status == ETIMEDOUT && laterInSameVM(r) && unprovenAfter(r)) {
                /* Maybe recorded in the other order than JavaScriptCore's: its order decides. */
                fallbacks++;
                break;
            }
        }
    }
    if (r->previous) r->previous->next = r->next; else head = r->next;
    if (r->next) r->next->previous = r->previous; else tail = r->previous;
    if (waiters) pthread_cond_broadcast(&changed);
    /* This thread's JS resumes now (atomic: unlisted records take seqs without the mutex). */
    jsStart = __atomic_load_n(&lastSeq, __ATOMIC_ACQUIRE);
    pthread_mutex_unlock(&mutex);
    recycle(r);
}

uint64_t PELockDropOrderWaits(void) {
    pthread_mutex_lock(&mutex);
    uint64_t n = waits;
    pthread_mutex_unlock(&mutex);
    return n;
}

uint64_t PELockDropOrderBoundedFallbacks(void) {
    pthread_mutex_lock(&mutex);
    uint64_t n = fallbacks;
    pthread_mutex_unlock(&mutex);
    return n;
}

uint64_t PELockDropOrderUnprovenRecords(void) {
    pthread_mutex_lock(&mutex);
    uint64_t n = unproven;
    pthread_mutex_unlock(&mutex);
    return n;
}

void PELockDropOrderSetBeforePushHook(void (*hook)(void)) {
    __atomic_store_n(&beforePushHook, hook, __ATOMIC_RELEASE);
}
