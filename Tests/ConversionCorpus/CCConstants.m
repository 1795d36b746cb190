#import "CCConstants.h"

NSString *const CCSilentExternKey = @"extern-key";
const NSInteger CCSilentExternLimit = 7;
