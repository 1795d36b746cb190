/* The conversion corpus's silent differences (issue 33): constructs whose first conversions
   ran, but not as the compiled code does. Each method is called natively and converted. */
#import <Foundation/Foundation.h>
#import "ConversionCorpus.h"
#import "CCConstants.h"

@interface CCSilent : NSObject
{
    NSInteger _priority;
}
@property (nonatomic) NSInteger priority;
/* Variadic, not a format by its name or an attribute: its implementation formats it. */
- (NSString *)log:(NSString *)format, ...;
- (NSInteger)sum:(NSInteger)first, ...;
@end

static NSString *const CCSilentKey = @"silent-key";
static const NSInteger CCSilentLimit = 3;
static NSInteger CCSilentCounter = 0;

@implementation CCSilent
@synthesize priority = _priority;

- (NSString *)log:(NSString *)format, ...
{
    va_list ap;
    va_start(ap, format);
    NSString *s = [[[NSString alloc] initWithFormat:format arguments:ap] autorelease];
    va_end(ap);
    return [@"log: " stringByAppendingString:s];
}

- (NSInteger)sum:(NSInteger)first, ...
{
    va_list ap;
    va_start(ap, first);
    NSInteger total = 0;
    for (NSInteger v = first; v != 0; v = va_arg(ap, NSInteger)) total += v;
    va_end(ap);
    return total;
}

/* (1) A call of the app's own variadic method. */
- (NSString *)variadicCalls:(NSString *)url
{
    NSString *a = [self log:@"fetch %@ at %ld%% [%5ld]", url, (long)7, (long)self.priority];
    NSString *b = [self log:@"plain 100%%"];
    return [NSString stringWithFormat:@"%@ | %@", a, b];
}

/* (2) Literals where a value is kept or sent messages: ?:, conditionals, receivers. */
- (NSString *)literalsEverywhere:(NSArray *)items flag:(BOOL)flag
{
    NSArray *list = items ?: @[];
    NSUInteger n = 0;
    for (id x in [list objectEnumerator]) n += [[x description] length];
    NSString *none = nil;
    NSString *shown = none ?: @"none";
    NSDictionary *d = nil;
    NSDictionary *dict = d ?: @{@"k": @"v"};
    NSUInteger lengths = [(flag ? @"yes" : @"no!") length] + [@"abc" length] + [@[] count] + [@{} count] + [@[@"a", @"b"] count];
    NSArray *nested = @[@[@"x"], @{@"y": @1}];
    return [NSString stringWithFormat:@"%lu %@ %@ %lu %lu %@ %@", (unsigned long)n, [shown uppercaseString], [dict objectForKey:@"k"],
                                      (unsigned long)lengths, (unsigned long)[[nested objectAtIndex:0] count],
                                      [[nested lastObject] objectForKey:@"y"], [(items ?: @[@"d"]) componentsJoinedByString:@"+"]];
}

/* (3) Boxed expressions and NSNumbers sent messages. */
- (NSString *)boxedReceivers:(NSInteger)m
{
    self.priority = m;
    NSUInteger h = @(self.priority).hash;
    NSComparisonResult order = [@(m) compare:@(3)];
    NSString *text = [@(2.5) description];
    NSUInteger length = [@("abc") length];
    NSDictionary *d = @{@"n": @(m), @"zero": @0};
    NSNumber *k = [d objectForKey:@"n"];
    NSNumber *zero = [d objectForKey:@"zero"];
    NSNumber *kept = zero ?: @5;
    return [NSString stringWithFormat:@"%d %ld %@ %lu %@ %d %@ %@ %d", h == [[NSNumber numberWithInteger:m] hash], (long)order, text,
                                      (unsigned long)length, [k description], [k isEqualToNumber:@(m)], [k stringValue], kept,
                                      zero ? 1 : 0];
}

/* (5) nil in every position: kept, sent messages, compared, passed, returned. */
- (NSString *)nilEverywhere:(NSString *)given
{
    NSString *s = nil;
    NSString *c = [s copy];
    NSUInteger len = [s length] + [[s uppercaseString] length];
    id none = nil;
    NSArray *one = [NSArray arrayWithObjects:@"only", nil];
    NSArray *empty = [NSArray arrayWithObjects:nil];
    NSMutableArray *out = [NSMutableArray array];
    if (!s) [out addObject:@"!s"];
    if (s == nil) [out addObject:@"==nil"];
    if (given != nil) [out addObject:@"given"];
    if (none) [out addObject:@"none?"];
    NSNumber *zero = [NSNumber numberWithInteger:0];
    if (zero) [out addObject:@"zero is set"];
    if (zero != nil && !(zero == nil)) [out addObject:@"zero != nil"];
    BOOL isSet = zero != nil;
    NSString *fallback = [self pick:nil];
    [c release];
    return [NSString stringWithFormat:@"%@ %lu %@ %lu %lu %@ %d %@ %@", c, (unsigned long)len, none, (unsigned long)[one count],
                                      (unsigned long)[empty count], [out componentsJoinedByString:@","], isSet, fallback, [self pick:given]];
}

- (NSString *)pick:(NSString *)value
{
    return value ? [value stringByAppendingString:@"!"] : nil;
}

/* Blocks capture a copy of a variable (not a __block one) when they are made. */
- (NSString *)captures
{
    NSInteger x = 1;
    __block NSInteger y = 1;
    NSString *label = @"before";
    NSString *(^show)(void) = ^NSString *(void) {
        return [NSString stringWithFormat:@"%ld %ld %@", (long)x, (long)y, label];
    };
    x = 2;
    y = 2;
    label = @"after";
    NSInteger (^add)(NSInteger) = ^NSInteger(NSInteger v) { return v + x; };
    x = 10;
    return [NSString stringWithFormat:@"%@ / %ld", show(), (long)add(1)];
}

/* %p of an object: the engine passes the object itself. */
- (NSString *)pointerFormat:(id)other
{
    return [NSString stringWithFormat:@"%p|%p", self, other];
}

/* &local for an object out-parameter: NSScanner's and an NSError ** of the app. */
- (NSString *)scanned:(NSString *)text
{
    NSScanner *scanner = [NSScanner scannerWithString:text];
    NSString *head = @"none";
    BOOL found = [scanner scanUpToString:@"/" intoString:&head];
    NSError *error = nil;
    BOOL ok = [self fail:&error];
    return [NSString stringWithFormat:@"%d %@ %d %ld", found, head, ok, (long)[error code]];
}

- (BOOL)fail:(NSError **)error
{
    if (error) *error = [NSError errorWithDomain:@"corpus" code:3 userInfo:nil];
    return NO;
}

/* Constant file-scope globals with literal values: inlined (an object one stays an object). */
- (NSString *)constants
{
    return [NSString stringWithFormat:@"%@ %lu %ld", CCSilentKey, (unsigned long)[CCSilentKey length], (long)CCSilentLimit];
}

/* extern constants of another file: read by their symbols (the app allows them). */
- (NSString *)externConstants
{
    return [NSString stringWithFormat:@"%@ %lu %ld", CCSilentExternKey, (unsigned long)[CCSilentExternKey length], (long)CCSilentExternLimit];
}

/* What is refused: mutable file-scope state. */
- (NSInteger)refusedCounter
{
    return ++CCSilentCounter;
}

/* What is refused: a variadic method that isn't a format method. */
- (NSInteger)refusedVariadic
{
    return [self sum:1, 2, 3, 0];
}
@end

/* Found by the outside libraries' suites (OutsideLibraryTests): constants whose initialiser is an
   integer constant expression, as GNUstep declares NSRegularExpression's options
   (`static const NSRegularExpressionOptions NSRegularExpressionCaseInsensitive = 1<<0;`). */
static const NSUInteger CCSilentOptionA = 1<<0;
static const NSUInteger CCSilentOptionB = 1<<4;
static const NSUInteger CCSilentWide = (NSUInteger)1 << 40;
static const NSInteger CCSilentNegative = -(1 << 2) | 1;

@interface CCSilent (OutsideLibraries)
- (NSString *)constantExpressions;
@end

@implementation CCSilent (OutsideLibraries)
- (NSString *)constantExpressions
{
    NSUInteger options = CCSilentOptionA | CCSilentOptionB;
    return [NSString stringWithFormat:@"%lu %lu %ld", (unsigned long)options, (unsigned long)CCSilentWide, (long)CCSilentNegative];
}
@end

/* Found by OrderedDictionary's suite: a patch reaches instance variables through key-value coding,
   which an NSDictionary subclass answers with its entries (valueForKey:@"_storage" is the entry
   "_storage", nil here): refused with the reason. */
@interface CCSilentDictionary : NSDictionary {
    NSDictionary *_storage;
}
- (NSUInteger)storedCount;
@end

@implementation CCSilentDictionary
- (NSUInteger)storedCount
{
    return [_storage count];
}
@end

/* Found by OrderedDictionary's suite: a category on a Foundation class whose method keeps a static
   object: the script's first lines make the static's value (NSString) before defineClass('NSString')
   would have named the class, so the script requires it. */
@interface NSString (CCSilentStatic)
- (NSString *)ccSilentTagged;
@end

@implementation NSString (CCSilentStatic)
- (NSString *)ccSilentTagged
{
    static NSString *const tag = @"tag:";
    return [tag stringByAppendingString:self];
}
@end

int cc_silent_class_count(void)
{
    return [CCSilent class] != Nil ? 1 : 0;
}
