/* PEPatchClient and its configuration over the Swift PatchClient's C entry points (PEBridge.h). */
#import "PEPatchEngine.h"
#import "PEPatchErrors.h"
#include "PEBridge.h"
#include <Block.h>
#include <stdlib.h>

@implementation PEPatchClientConfiguration
@synthesize metadataURL = _metadataURL, targetsURL = _targetsURL, bundledRoot = _bundledRoot, appID = _appID,
            appVersion = _appVersion, channel = _channel, deviceID = _deviceID, stateDirectory = _stateDirectory,
            allowsInsecureHTTP = _allowsInsecureHTTP, updateDeadline = _updateDeadline;

- (void)dealloc {
    [_metadataURL release]; [_targetsURL release]; [_bundledRoot release]; [_appID release];
    [_appVersion release]; [_channel release]; [_deviceID release]; [_stateDirectory release];
    [super dealloc];
}
@end

/* The client's handler block (a copy) is the callback's context. */
static void runEventHandler(void *context, const char *kind, const char *description) {
    void (^handler)(NSString *, NSString *) = context;
    NSAutoreleasePool *pool = [NSAutoreleasePool new];
    handler([NSString stringWithUTF8String:kind], [NSString stringWithUTF8String:description]);
    [pool release];
}

@implementation PEPatchClient

+ (PEPatchClient *)startWithConfiguration:(PEPatchClientConfiguration *)configuration
                             eventHandler:(void (^)(NSString *, NSString *))handler
                                    error:(NSError **)error {
    NSString *missing = !configuration.metadataURL ? @"metadataURL" : !configuration.targetsURL ? @"targetsURL"
        : !configuration.bundledRoot ? @"bundledRoot" : !configuration.appID ? @"appID" : !configuration.appVersion ? @"appVersion"
        : !configuration.channel ? @"channel" : !configuration.deviceID ? @"deviceID" : !configuration.stateDirectory ? @"stateDirectory" : nil;
    if (missing) {
        if (error) *error = PEPatchErrorMake("client", [[NSString stringWithFormat:@"the configuration has no %@", missing] UTF8String], NULL, 0, 0);
        return nil;
    }
    void *copy = handler ? (void *)Block_copy(handler) : NULL;
    char *message = NULL;
    NSData *root = configuration.bundledRoot;
    void *client = PEBridgeClientStart([[configuration.metadataURL absoluteString] UTF8String],
                                       [[configuration.targetsURL absoluteString] UTF8String],
                                       [root bytes], (long)[root length], [configuration.appID UTF8String],
                                       [configuration.appVersion UTF8String], [configuration.channel UTF8String],
                                       [configuration.deviceID UTF8String], [configuration.stateDirectory fileSystemRepresentation],
                                       configuration.allowsInsecureHTTP, configuration.updateDeadline, copy ? runEventHandler : NULL, copy, &message);
    if (!client) {
        if (copy) Block_release(copy);
        NSError *made = PEPatchErrorMake("client", message, NULL, 0, 0);
        free(message);
        if (error) *error = made;
        return nil;
    }
    PEPatchClient *started = [[[PEPatchClient alloc] init] autorelease];
    started->_client = client;
    started->_handler = copy;
    return started;
}

- (void)update { PEBridgeClientUpdate(_client); }
- (void)markLaunchSucceeded { PEBridgeClientMarkLaunchSucceeded(_client); }

- (void)dealloc {
    if (_client) PEBridgeClientRelease(_client);
    if (_handler) Block_release(_handler);
    [super dealloc];
}
@end
