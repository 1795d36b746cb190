/* The arm64 check (make arm64-check): the runtime core's register paths, cross-compiled for
   aarch64 Linux and run under qemu-aarch64, as iOS runs them (no libffi: PATCHENGINE_WITHOUT_LIBFFI
   is set before anything reads it). Prints each failure, then "N passed, M failed"; exits 1 on
   any failure. */
#import "Check.h"
#include "PatchRuntime.h"
#include <stdio.h>
#include <stdlib.h>

int main(void) {
    setenv("PATCHENGINE_WITHOUT_LIBFFI", "1", 1);
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
#if !defined(__aarch64__)
    printf("note: not an arm64 build: the x86-64 conventions are what this run checks\n");
#endif
    if (getenv("ARM64_CHECK_FOREIGN_BLOCK_COPY")) {
        acRunForeignBlockCopyCase();
    } else {
        acRunShapeCases();
        acRunRegisterRuleCases();
        acRunVariadicCases();
    }
    [pool release];
    printf("%u passed, %u failed\n", acPassed(), acFailed());
    return acFailed() ? 1 : 0;
}
