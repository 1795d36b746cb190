/* The Swift side's C entry points (Sources/PatchEngineObjCBridge, @_cdecl): declared here, defined
   there, matched by hand (plain C types only). Strings out are malloc'd: the caller frees them. */
#ifndef PE_BRIDGE_H
#define PE_BRIDGE_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void PEBridgeStart(void);
bool PEBridgeEvaluate(const char *script, const char *name, char **kind, char **message, char **scriptName, long *line, long *column);
bool PEBridgeEvaluateFile(const char *path, char **kind, char **message, char **scriptName, long *line, long *column);
bool PEBridgeRevert(const char *name, char **kind, char **message, char **scriptName, long *line, long *column);
void PEBridgeRevertAll(void);
char *PEBridgeCopyAppliedNames(void);
typedef void (*PEBridgeErrorCallback)(void *context, const char *kind, const char *message, const char *scriptName, long line, long column);
void PEBridgeSetErrorHandler(PEBridgeErrorCallback callback, void *context);
typedef void (*PEBridgeLineCallback)(void *context, const char *line);
void PEBridgeSetLogHandler(PEBridgeLineCallback callback, void *context);
double PEBridgeExecutionTimeLimit(void);
void PEBridgeSetExecutionTimeLimit(double seconds);
int64_t PEBridgeHeapGrowthLimit(void);
void PEBridgeSetHeapGrowthLimit(int64_t bytes);
bool PEBridgeIsExecutionTimeLimitAvailable(void);
bool PEBridgeLimitsEndByException(void);
bool PEBridgeRequestLimitsEndByWatchdog(void);

typedef void (*PEBridgeEventCallback)(void *context, const char *kind, const char *description);
void *PEBridgeClientStart(const char *metadataURL, const char *targetsURL, const void *bundledRoot, long bundledRootLength,
                          const char *appID, const char *appVersion, const char *channel, const char *deviceID,
                          const char *stateDirectory, bool allowsInsecureHTTP, double updateDeadline,
                          PEBridgeEventCallback callback, void *context, char **message);
void PEBridgeClientUpdate(void *client);
void PEBridgeClientMarkLaunchSucceeded(void *client);
void PEBridgeClientRelease(void *client);
#endif
