/* The native half of JSPatch's own test suite (JSPatchTests.m, at
   ../shared/third_party/jspatch-tests): the classes its scripts patch, and each test's
   assertions, made natively against those classes as JSPatchTests.m makes them. Swift loads the
   scripts and drives the tests; it reaches this target through these C functions (Swift on
   Linux imports no Objective-C).

   Every assertion of JSPatchTests.m is an assertion site, reported through `JPFCheck` in source
   order as "<test>:<n> <message>" (n counts the test's XCTAssert lines from 1; the message is
   the assertion's, else its expression). A site whose expression raised an Objective-C
   exception is reported failed with the exception in `note`; a site this runtime cannot run
   is reported skipped with the reason in `note`. */
#ifndef JSPATCH_FIXTURES_H
#define JSPATCH_FIXTURES_H

#include <stdbool.h>

typedef enum { JPFFailed = 0, JPFPassed = 1, JPFSkipped = 2 } JPFOutcome;
typedef void (*JPFCheck)(void *context, const char *site, JPFOutcome outcome, const char *note);

/* testEngine, all but its last site: `ocObj` and `subObj` are the objects test.js publishes
   (JSPatchTests.m reads them from the context; NULL when the script did not set them). */
void jpf_engine_checks(void *ocObj, void *subObj, JPFCheck check, void *context);
/* testEngine's last site: calls -funcToSwizzleTestGCD: with a block that checks the flag and
   sets *done; the caller runs the main queue until *done (JSPatchTests.m spins the run loop). */
void jpf_engine_gcd_start(void *ocObj, JPFCheck check, void *context, volatile int *done);
/* The same site, failed: the block was not called in time. */
void jpf_engine_gcd_timed_out(JPFCheck check, void *context);

void jpf_js_class_checks(JPFCheck check, void *context);
void jpf_super_class_checks(JPFCheck check, void *context);
/* testInheritance: the values native callers see before the patch (a retained state), then the
   checks after it (which release the state). */
void *jpf_inheritance_capture(void);
void jpf_inheritance_checks(void *state, JPFCheck check, void *context);
void jpf_cfunction_checks(JPFCheck check, void *context);
void jpf_number_checks(JPFCheck check, void *context);
void jpf_new_block_checks(JPFCheck check, void *context);
void jpf_new_protocol_checks(JPFCheck check, void *context);

/* testDispatchQueue: `count` JPMultithreadTestObjects with objectId 0..count-1 (a retained
   array), the body each queued job runs on one of them (adds its id `count` times through
   -addValue:, then answers -checkAllValues), and the release of the array. */
void *jpf_multithread_objects(int count);
bool jpf_multithread_job(void *objects, int index, int count);
void jpf_multithread_release(void *objects);

/* The performance tests (JSPatchTests.m measures them; here each runs once, untimed):
   sends `selector` to a new JPPerformanceTest. */
void jpf_performance_run(const char *selector);

/* How -callBlockDelay: reaches the main queue: `fn(argument)` after `seconds`. */
void jpf_set_main_queue_runner(void (*runner)(double seconds, void (*fn)(void *), void *argument));

#endif
