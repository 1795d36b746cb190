/* PFChainFixture.h: nested -deallocs, one per link. */
#import "PFSupport.h"
#include "PFChainFixture.h"

#define PF_CHAIN_SEEN 1024
static int seen[PF_CHAIN_SEEN];
static int seenCount;

@interface PFChainLink : NSObject {
@public
    PFChainLink *next;
}
- (int)value;
@end

@implementation PFChainLink
- (int)value { return -1; }
- (void)dealloc {
    int value = [self value];
    if (seenCount < PF_CHAIN_SEEN) seen[seenCount++] = value;
    [next release];
    [super dealloc];
}
@end

void *pf_chain_make(int count) {
    PFChainLink *head = nil;
    for (int i = 0; i < count; i++) {
        PFChainLink *link = [PFChainLink new];
        link->next = head;
        head = link;
    }
    return head;
}

int pf_chain_value(void *link) { return [(PFChainLink *)link value]; }

void *pf_chain_link(void *head, int index) {
    PFChainLink *link = head;
    for (int i = 0; i < index && link; i++) link = link->next;
    return link;
}

int pf_chain_seen(int *values, int capacity) {
    int n = seenCount < capacity ? seenCount : capacity;
    for (int i = 0; i < n; i++) values[i] = seen[i];
    int total = seenCount;
    seenCount = 0;
    return total;
}
