/* Epoch-based reclamation for the dispatcher's lock-free reads (see PEEpochs.h). */
#include "PEEpochs.h"
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

typedef struct ThreadRecord {
    uint64_t epoch;             /* 0 when outside a read section */
    unsigned depth;
    struct ThreadRecord *next;
} ThreadRecord;

typedef struct Retired {
    void *item;
    void (*destroy)(void *);
    uint64_t tag;
    struct Retired *next;
} Retired;

static uint64_t globalEpoch = 1;
static ThreadRecord *records;                  /* every thread that ever read; never freed (tiny) */
static Retired *retired;
static pthread_mutex_t retireLock = PTHREAD_MUTEX_INITIALIZER;
static __thread ThreadRecord *myRecord;

static ThreadRecord *record(void) {
    if (!myRecord) {
        ThreadRecord *r = calloc(1, sizeof *r);
        pthread_mutex_lock(&retireLock);
        r->next = records;
        __atomic_store_n(&records, r, __ATOMIC_RELEASE);
        pthread_mutex_unlock(&retireLock);
        myRecord = r;
    }
    return myRecord;
}

void PEEpochEnter(void) {
    ThreadRecord *r = record();
    if (r->depth++ == 0) {
        __atomic_store_n(&r->epoch, __atomic_load_n(&globalEpoch, __ATOMIC_ACQUIRE), __ATOMIC_RELAXED);
        /* The announcement must be visible before this thread reads any list. */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    }
}

void PEEpochExit(void) {
    ThreadRecord *r = myRecord;
    if (r && --r->depth == 0) __atomic_store_n(&r->epoch, 0, __ATOMIC_RELEASE);
}

void PEEpochRetire(void *item, void (*destroy)(void *)) {
    Retired *entry = malloc(sizeof *entry);
    entry->item = item;
    entry->destroy = destroy;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);    /* the unlink happens before the tag is taken */
    entry->tag = __atomic_fetch_add(&globalEpoch, 1, __ATOMIC_SEQ_CST);

    Retired *ready = NULL;
    pthread_mutex_lock(&retireLock);
    entry->next = retired;
    retired = entry;
    uint64_t oldest = UINT64_MAX;               /* the oldest epoch a reader is still in */
    for (ThreadRecord *r = records; r; r = r->next) {
        uint64_t e = __atomic_load_n(&r->epoch, __ATOMIC_ACQUIRE);
        if (e && e < oldest) oldest = e;
    }
    for (Retired **link = &retired; *link;) {
        Retired *candidate = *link;
        if (candidate->tag < oldest) { *link = candidate->next; candidate->next = ready; ready = candidate; }
        else link = &candidate->next;
    }
    pthread_mutex_unlock(&retireLock);
    while (ready) {
        Retired *next = ready->next;
        ready->destroy(ready->item);
        free(ready);
        ready = next;
    }
}
