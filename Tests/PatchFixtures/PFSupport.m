#import "PFSupport.h"
#include <math.h>
#include <objc/runtime.h>

char *PFCopyString(NSString *string)
{
    if (string == nil) return NULL;
    return strdup([string UTF8String]);
}

static NSString *PFDescribeNumber(NSNumber *number)
{
    double value = [number doubleValue];
    if (value == floor(value) && fabs(value) <= 9007199254740992.0) {
        return [NSString stringWithFormat:@"%lld", [number longLongValue]];
    }
    return [NSString stringWithFormat:@"%.15g", value];
}

NSString *PFDescribe(id object)
{
    if (object == nil) return @"nil";
    if (class_isMetaClass(object_getClass(object))) {
        return [NSString stringWithFormat:@"class:%s", class_getName((Class)object)];
    }
    if ([object isKindOfClass:[NSNull class]]) return @"null";
    if ([object isKindOfClass:[NSString class]]) return [NSString stringWithFormat:@"\"%@\"", object];
    if ([object isKindOfClass:[NSNumber class]]) return PFDescribeNumber(object);
    if ([object isKindOfClass:[NSArray class]]) {
        NSMutableArray *parts = [NSMutableArray array];
        for (id item in object) [parts addObject:PFDescribe(item)];
        return [NSString stringWithFormat:@"[%@]", [parts componentsJoinedByString:@", "]];
    }
    if ([object isKindOfClass:[NSDictionary class]]) {
        NSMutableArray *parts = [NSMutableArray array];
        NSArray *keys = [[object allKeys] sortedArrayUsingSelector:@selector(compare:)];
        for (id key in keys) {
            [parts addObject:[NSString stringWithFormat:@"%@: %@", key, PFDescribe([object objectForKey:key])]];
        }
        return [NSString stringWithFormat:@"{%@}", [parts componentsJoinedByString:@", "]];
    }
    return [NSString stringWithFormat:@"<%s>", class_getName(object_getClass(object))];
}

char *PFCopyExceptionString(NSException *exception)
{
    return PFCopyString([NSString stringWithFormat:@"!%@: %@", [exception name], [exception reason]]);
}
