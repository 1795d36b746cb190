/* Epoch-based reclamation for the dispatcher's lock-free reads (see PEEpochs.h). */
#include "PEEpochs.h"
#include "PEPlatform.h"
#include "PELiveRecords.h"
#include "PEStressPoints.h"
#include <pthread.h>
#include <stdlib.h>

typedef struct Retired {
    void *item;
    void (*destroy)(void *);
    uint64_t tag;
    struct Retired *next;
} Retired;

uint64_t PEEpochGlobal = 1;
__thread PEEpochRecord *PEEpochThreadRecord;
bool PEEpochReadersFence = true;
static PEEpochRecord *records;                 /* every thread that ever read; never freed (tiny) */
static Retired *retired;
static pthread_mutex_t retireLock = PTHREAD_MUTEX_INITIALIZER;

/* Before any reader exists (constructors run before main and before other threads). Readers that
   started with the fence keep being correct either way; the flag only ever goes true → false.
   PATCHENGINE_NO_MEMBARRIER keeps the fences (to test and measure that path). */
__attribute__((constructor)) static void chooseBarrier(void) {
    if (!getenv("PATCHENGINE_NO_MEMBARRIER") && PEProcessBarrierRegister()) PEEpochReadersFence = false;
}

bool PEDispatchReadersFence(void) { return PEEpochReadersFence; }

PEEpochRecord *PEEpochRegisterThread(void) {
    PEEpochRecord *r = calloc(1, sizeof *r);
    pthread_mutex_lock(&retireLock);
    r->next = records;
    __atomic_store_n(&records, r, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&retireLock);
    PEEpochThreadRecord = r;
    return r;
}

static int64_t liveRecords[PELiveRecordKindCount];

void PELiveRecordAdjust(PELiveRecordKind kind, int64_t delta) {
    __atomic_add_fetch(&liveRecords[kind], delta, __ATOMIC_RELAXED);
}
int64_t PELiveRecordCount(PELiveRecordKind kind) { return __atomic_load_n(&liveRecords[kind], __ATOMIC_RELAXED); }

/* Queues `entry` (may be NULL) and destroys every queued item no reader can still see. */
static void reclaim(Retired *entry) {
    Retired *ready = NULL;
    pthread_mutex_lock(&retireLock);
    if (entry) { entry->next = retired; retired = entry; }
    uint64_t oldest = UINT64_MAX;               /* the oldest epoch a reader is still in */
    for (PEEpochRecord *r = records; r; r = r->next) {
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
        PELiveRecordAdjust(PELiveRecordRetired, -1);
        ready = next;
    }
}

void PEEpochRetire(void *item, void (*destroy)(void *)) {
    Retired *entry = malloc(sizeof *entry);
    entry->item = item;
    entry->destroy = destroy;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);    /* the unlink happens before the tag is taken */
    entry->tag = __atomic_fetch_add(&PEEpochGlobal, 1, __ATOMIC_SEQ_CST);
    /* Pairs with the readers' missing fence: after it, every announcement made before is visible
       here, and every reader that announces later sees the unlink. */
    if (!PEEpochReadersFence && !PEProcessBarrier()) {
        /* Registered, so it should not fail; if it does, nothing can be proven safe to free:
           the item is kept (a small leak) rather than risking a reader on freed memory. */
        free(entry);
        return;
    }
    PELiveRecordAdjust(PELiveRecordRetired, 1);
    PE_STRESS_POINT();
    reclaim(entry);
}

void PEEpochReclaim(void) {
    if (!PEEpochReadersFence && !PEProcessBarrier()) return;
    reclaim(NULL);
}
