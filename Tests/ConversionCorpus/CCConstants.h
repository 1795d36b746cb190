/* Constants another file of the corpus defines (CCConstants.m): read by their symbols. */
#import <Foundation/Foundation.h>

extern NSString *const CCSilentExternKey;
extern const NSInteger CCSilentExternLimit;
