/* PatchEngine for Objective-C apps: what an app delegate that called JSPatch's
   [JPEngine startEngine] / evaluateScript: does, over the Swift engine (PatchEngine) and its signed
   delivery (PatchClient). Manual reference counting and ARC alike: nothing returned needs a
   release, blocks given are copied. */
#ifndef PE_PATCH_ENGINE_H
#define PE_PATCH_ENGINE_H
/* Objective-C only: a C or Swift-on-Linux importer of the module sees nothing. */
#ifdef __OBJC__
#import <Foundation/Foundation.h>

/* Errors of evaluate/revert and of PEPatchClient's start. */
extern NSString *const PEPatchErrorDomain;
typedef NS_ENUM(NSInteger, PEPatchErrorCode) {
    PEPatchErrorSyntax = 1,         /* the script does not parse */
    PEPatchErrorEvaluation = 2,     /* it threw while evaluated (it was rolled back); or the file can't be read */
    PEPatchErrorRuntime = 3,        /* JS inside a patched method threw (the error handler's errors) */
    PEPatchErrorNotApplied = 4,     /* revert of a name that is not applied */
    PEPatchErrorTimeout = 5,        /* ran past executionTimeLimit */
    PEPatchErrorHeapGrowth = 6,     /* grew the app's memory past heapGrowthLimit */
    PEPatchErrorClient = 7,         /* a PEPatchClient configuration was refused */
};
/* userInfo keys: the script's name (NSString), line and column (NSNumber, 1-based; absent when
   unknown). The localized description reads "name:line:column: kind error: message". */
extern NSString *const PEPatchErrorScriptNameKey;
extern NSString *const PEPatchErrorLineKey;
extern NSString *const PEPatchErrorColumnKey;

@interface PEPatchEngine : NSObject
/* Starts the engine now (JSPatch's +startEngine); otherwise the first evaluation does. */
+ (void)startEngine;
/* Evaluates a patch script under `name` (what revert and errors call it). A script that throws
   is rolled back completely. NO with *error (file:line:column in userInfo) on failure; a nil
   script, name or path is an error too (PEPatchErrorEvaluation), never a crash. */
+ (BOOL)evaluateScript:(NSString *)script name:(NSString *)name error:(NSError **)error;
/* The same under the name "main.js" (JSPatch's evaluateScript:). */
+ (BOOL)evaluateScript:(NSString *)script error:(NSError **)error;
/* A script file; include() resolves beside it; the patch is named by the path. */
+ (BOOL)evaluateScriptWithPath:(NSString *)path error:(NSError **)error;
/* Undoes what the script `name` changed: native callers see the original again. */
+ (BOOL)revertScriptNamed:(NSString *)name error:(NSError **)error;
+ (void)revertAll;
/* The names of the applied scripts, in the order applied. */
+ (NSArray *)appliedScriptNames;
/* Called, on the thread of the call, for each JS error inside a patched method (the call falls
   back to the original implementation). nil removes it. */
+ (void)setErrorHandler:(void (^)(NSError *error))handler;
/* console.log's lines. nil removes it. */
+ (void)setLogHandler:(void (^)(NSString *line))handler;
/* Limits of one evaluation or call into JS: seconds, and bytes the app's memory may grow; 0 for
   none. An entry past them is ended by an exception at its next loop turn or call, which a
   script's catch sees until its next loop turn or call (limitsEndByException YES, the default and
   an App Store build's only end); requestLimitsEndByWatchdog, before the engine's first use, asks
   for JavaScriptCore's uncatchable termination instead where its private watchdog functions exist
   (returns whether that is the end in force). */
+ (NSTimeInterval)executionTimeLimit;
+ (void)setExecutionTimeLimit:(NSTimeInterval)seconds;
+ (long long)heapGrowthLimit;
+ (void)setHeapGrowthLimit:(long long)bytes;
+ (BOOL)isExecutionTimeLimitAvailable;
+ (BOOL)limitsEndByException;
+ (BOOL)requestLimitsEndByWatchdog;
@end

/* Where a PEPatchClient gets signed releases (docs/patch-delivery.md). */
@interface PEPatchClientConfiguration : NSObject {
@package    /* GCC's runtime has fragile ivars: declared here */
    NSURL *_metadataURL, *_targetsURL;
    NSData *_bundledRoot;
    NSString *_appID, *_appVersion, *_channel, *_deviceID, *_stateDirectory;
    BOOL _allowsInsecureHTTP;
    NSTimeInterval _updateDeadline;
}
@property (nonatomic, copy) NSURL *metadataURL;          /* the repository's metadata/ folder */
@property (nonatomic, copy) NSURL *targetsURL;           /* its targets/ folder */
@property (nonatomic, copy) NSData *bundledRoot;         /* root.json shipped in the app */
@property (nonatomic, copy) NSString *appID;
@property (nonatomic, copy) NSString *appVersion;        /* semantic version, e.g. @"4.2.0" */
@property (nonatomic, copy) NSString *channel;           /* @"production"; QA builds @"staging" */
@property (nonatomic, copy) NSString *deviceID;          /* targeting and the rollout bucket */
@property (nonatomic, copy) NSString *stateDirectory;    /* a folder the client owns */
@property (nonatomic) BOOL allowsInsecureHTTP;           /* http:// repositories: tests only */
@property (nonatomic) NSTimeInterval updateDeadline;     /* -update waits this long at most; 0: 30 s */
@end

/* A running PatchClient: started, it applies what it verified last (no network); -update
   fetches and applies the channel's releases. Events arrive as (kind, description), kind one of
   refreshed, refreshFailed, refused, applied, failed, reverted, notSelected, disabledByCrashLoop,
   crashLoopSearchStarted, storedMetadataUnusable, metadataStale, storedRootDiscarded, storageFailed,
   temporaryFilesRemoved. */
@interface PEPatchClient : NSObject {
@package
    void *_client;
    void *_handler;
}
+ (PEPatchClient *)startWithConfiguration:(PEPatchClientConfiguration *)configuration
                             eventHandler:(void (^)(NSString *kind, NSString *description))handler
                                    error:(NSError **)error;
- (void)update;
/* The app launched fine: nothing applied so far is suspect to the crash-loop guard any more. */
- (void)markLaunchSucceeded;
@end
#endif
#endif
