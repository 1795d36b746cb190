#import <Foundation/Foundation.h>

typedef NS_ENUM(NSInteger, CCShape) { CCShapeSquare, CCShapeCircle = 5, CCShapeTriangle };

@interface CCCorpus : NSObject
{
    NSInteger _count;
    NSString *_name;
    NSInteger _total;
    NSMutableArray *_log;
}
@property (nonatomic) NSInteger count;
@property (nonatomic, copy) NSString *name;
+ (NSString *)kind;
- (NSString *)describe;
- (NSString *)messageSends;
- (NSString *)properties;
- (NSString *)literals;
- (NSString *)blocks:(NSArray *)items;
- (NSInteger)apply:(NSInteger (^)(NSInteger, NSString *))function to:(NSInteger)value;
- (NSString *)structs;
- (NSString *)controlFlow:(NSInteger)n;
- (NSString *)operators:(NSInteger)a by:(NSInteger)b;
- (NSString *)formats:(NSInteger)n;
- (NSInteger)casts:(double)value;
- (NSInteger)instanceVariables:(NSInteger)add;
- (NSString *)enumsAndTernary:(CCShape)shape;
- (BOOL)isLong:(NSString *)text;
- (double)average:(NSArray *)numbers;
- (NSString *)unconvertible:(NSInteger)n;
@end

@interface CCCorpusChild : CCCorpus
@end
