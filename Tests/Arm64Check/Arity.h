/* Arity helpers for the shape list (ShapeCases.m): for n = 1...16 argument types, the parameter
   list, the argument list (and their addresses), the method keywords and a message's arguments,
   the encodings, the per-argument digest and the sample values. Plain preprocessor. */
#ifndef ARM64_CHECK_ARITY_H
#define ARM64_CHECK_ARITY_H
#define AC_COUNT(...) AC_COUNT_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1)
#define AC_COUNT_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) N
#define AC_CAT(a, b) AC_CAT_(a, b)
#define AC_CAT_(a, b) a##b
#define AC_PARAMS_1(T1) T1 a1
#define AC_PARAMS_2(T1, T2) T1 a1, T2 a2
#define AC_PARAMS_3(T1, T2, T3) T1 a1, T2 a2, T3 a3
#define AC_PARAMS_4(T1, T2, T3, T4) T1 a1, T2 a2, T3 a3, T4 a4
#define AC_PARAMS_5(T1, T2, T3, T4, T5) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5
#define AC_PARAMS_6(T1, T2, T3, T4, T5, T6) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6
#define AC_PARAMS_7(T1, T2, T3, T4, T5, T6, T7) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7
#define AC_PARAMS_8(T1, T2, T3, T4, T5, T6, T7, T8) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7, T8 a8
#define AC_PARAMS_9(T1, T2, T3, T4, T5, T6, T7, T8, T9) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7, T8 a8, T9 a9
#define AC_PARAMS_10(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7, T8 a8, T9 a9, T10 a10
#define AC_PARAMS_11(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7, T8 a8, T9 a9, T10 a10, T11 a11
#define AC_PARAMS_12(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7, T8 a8, T9 a9, T10 a10, T11 a11, T12 a12
#define AC_PARAMS_13(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7, T8 a8, T9 a9, T10 a10, T11 a11, T12 a12, T13 a13
#define AC_PARAMS_14(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7, T8 a8, T9 a9, T10 a10, T11 a11, T12 a12, T13 a13, T14 a14
#define AC_PARAMS_15(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7, T8 a8, T9 a9, T10 a10, T11 a11, T12 a12, T13 a13, T14 a14, T15 a15
#define AC_PARAMS_16(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16) T1 a1, T2 a2, T3 a3, T4 a4, T5 a5, T6 a6, T7 a7, T8 a8, T9 a9, T10 a10, T11 a11, T12 a12, T13 a13, T14 a14, T15 a15, T16 a16
#define AC_PARAMS(...) AC_CAT(AC_PARAMS_, AC_COUNT(__VA_ARGS__))(__VA_ARGS__)
#define AC_ARGS_1(p) p##1
#define AC_ARGS_2(p) p##1, p##2
#define AC_ARGS_3(p) p##1, p##2, p##3
#define AC_ARGS_4(p) p##1, p##2, p##3, p##4
#define AC_ARGS_5(p) p##1, p##2, p##3, p##4, p##5
#define AC_ARGS_6(p) p##1, p##2, p##3, p##4, p##5, p##6
#define AC_ARGS_7(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7
#define AC_ARGS_8(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8
#define AC_ARGS_9(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9
#define AC_ARGS_10(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9, p##10
#define AC_ARGS_11(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9, p##10, p##11
#define AC_ARGS_12(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9, p##10, p##11, p##12
#define AC_ARGS_13(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9, p##10, p##11, p##12, p##13
#define AC_ARGS_14(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9, p##10, p##11, p##12, p##13, p##14
#define AC_ARGS_15(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9, p##10, p##11, p##12, p##13, p##14, p##15
#define AC_ARGS_16(p) p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9, p##10, p##11, p##12, p##13, p##14, p##15, p##16
#define AC_ARGS(p, ...) AC_CAT(AC_ARGS_, AC_COUNT(__VA_ARGS__))(p)
#define AC_KEYWORDS_1(T1) :(T1)a1
#define AC_KEYWORDS_2(T1, T2) :(T1)a1 :(T2)a2
#define AC_KEYWORDS_3(T1, T2, T3) :(T1)a1 :(T2)a2 :(T3)a3
#define AC_KEYWORDS_4(T1, T2, T3, T4) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4
#define AC_KEYWORDS_5(T1, T2, T3, T4, T5) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5
#define AC_KEYWORDS_6(T1, T2, T3, T4, T5, T6) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6
#define AC_KEYWORDS_7(T1, T2, T3, T4, T5, T6, T7) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7
#define AC_KEYWORDS_8(T1, T2, T3, T4, T5, T6, T7, T8) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7 :(T8)a8
#define AC_KEYWORDS_9(T1, T2, T3, T4, T5, T6, T7, T8, T9) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7 :(T8)a8 :(T9)a9
#define AC_KEYWORDS_10(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7 :(T8)a8 :(T9)a9 :(T10)a10
#define AC_KEYWORDS_11(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7 :(T8)a8 :(T9)a9 :(T10)a10 :(T11)a11
#define AC_KEYWORDS_12(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7 :(T8)a8 :(T9)a9 :(T10)a10 :(T11)a11 :(T12)a12
#define AC_KEYWORDS_13(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7 :(T8)a8 :(T9)a9 :(T10)a10 :(T11)a11 :(T12)a12 :(T13)a13
#define AC_KEYWORDS_14(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7 :(T8)a8 :(T9)a9 :(T10)a10 :(T11)a11 :(T12)a12 :(T13)a13 :(T14)a14
#define AC_KEYWORDS_15(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7 :(T8)a8 :(T9)a9 :(T10)a10 :(T11)a11 :(T12)a12 :(T13)a13 :(T14)a14 :(T15)a15
#define AC_KEYWORDS_16(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16) :(T1)a1 :(T2)a2 :(T3)a3 :(T4)a4 :(T5)a5 :(T6)a6 :(T7)a7 :(T8)a8 :(T9)a9 :(T10)a10 :(T11)a11 :(T12)a12 :(T13)a13 :(T14)a14 :(T15)a15 :(T16)a16
#define AC_KEYWORDS(...) AC_CAT(AC_KEYWORDS_, AC_COUNT(__VA_ARGS__))(__VA_ARGS__)
#define AC_ENCODINGS_1(T1) @encode(T1)
#define AC_ENCODINGS_2(T1, T2) @encode(T1), @encode(T2)
#define AC_ENCODINGS_3(T1, T2, T3) @encode(T1), @encode(T2), @encode(T3)
#define AC_ENCODINGS_4(T1, T2, T3, T4) @encode(T1), @encode(T2), @encode(T3), @encode(T4)
#define AC_ENCODINGS_5(T1, T2, T3, T4, T5) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5)
#define AC_ENCODINGS_6(T1, T2, T3, T4, T5, T6) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6)
#define AC_ENCODINGS_7(T1, T2, T3, T4, T5, T6, T7) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7)
#define AC_ENCODINGS_8(T1, T2, T3, T4, T5, T6, T7, T8) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7), @encode(T8)
#define AC_ENCODINGS_9(T1, T2, T3, T4, T5, T6, T7, T8, T9) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7), @encode(T8), @encode(T9)
#define AC_ENCODINGS_10(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7), @encode(T8), @encode(T9), @encode(T10)
#define AC_ENCODINGS_11(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7), @encode(T8), @encode(T9), @encode(T10), @encode(T11)
#define AC_ENCODINGS_12(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7), @encode(T8), @encode(T9), @encode(T10), @encode(T11), @encode(T12)
#define AC_ENCODINGS_13(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7), @encode(T8), @encode(T9), @encode(T10), @encode(T11), @encode(T12), @encode(T13)
#define AC_ENCODINGS_14(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7), @encode(T8), @encode(T9), @encode(T10), @encode(T11), @encode(T12), @encode(T13), @encode(T14)
#define AC_ENCODINGS_15(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7), @encode(T8), @encode(T9), @encode(T10), @encode(T11), @encode(T12), @encode(T13), @encode(T14), @encode(T15)
#define AC_ENCODINGS_16(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16) @encode(T1), @encode(T2), @encode(T3), @encode(T4), @encode(T5), @encode(T6), @encode(T7), @encode(T8), @encode(T9), @encode(T10), @encode(T11), @encode(T12), @encode(T13), @encode(T14), @encode(T15), @encode(T16)
#define AC_ENCODINGS(...) AC_CAT(AC_ENCODINGS_, AC_COUNT(__VA_ARGS__))(__VA_ARGS__)
#define AC_DIGEST_1(T1) acDigestArgument(@encode(T1), &a1);
#define AC_DIGEST_2(T1, T2) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2);
#define AC_DIGEST_3(T1, T2, T3) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3);
#define AC_DIGEST_4(T1, T2, T3, T4) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4);
#define AC_DIGEST_5(T1, T2, T3, T4, T5) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5);
#define AC_DIGEST_6(T1, T2, T3, T4, T5, T6) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6);
#define AC_DIGEST_7(T1, T2, T3, T4, T5, T6, T7) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7);
#define AC_DIGEST_8(T1, T2, T3, T4, T5, T6, T7, T8) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7); acDigestArgument(@encode(T8), &a8);
#define AC_DIGEST_9(T1, T2, T3, T4, T5, T6, T7, T8, T9) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7); acDigestArgument(@encode(T8), &a8); acDigestArgument(@encode(T9), &a9);
#define AC_DIGEST_10(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7); acDigestArgument(@encode(T8), &a8); acDigestArgument(@encode(T9), &a9); acDigestArgument(@encode(T10), &a10);
#define AC_DIGEST_11(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7); acDigestArgument(@encode(T8), &a8); acDigestArgument(@encode(T9), &a9); acDigestArgument(@encode(T10), &a10); acDigestArgument(@encode(T11), &a11);
#define AC_DIGEST_12(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7); acDigestArgument(@encode(T8), &a8); acDigestArgument(@encode(T9), &a9); acDigestArgument(@encode(T10), &a10); acDigestArgument(@encode(T11), &a11); acDigestArgument(@encode(T12), &a12);
#define AC_DIGEST_13(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7); acDigestArgument(@encode(T8), &a8); acDigestArgument(@encode(T9), &a9); acDigestArgument(@encode(T10), &a10); acDigestArgument(@encode(T11), &a11); acDigestArgument(@encode(T12), &a12); acDigestArgument(@encode(T13), &a13);
#define AC_DIGEST_14(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7); acDigestArgument(@encode(T8), &a8); acDigestArgument(@encode(T9), &a9); acDigestArgument(@encode(T10), &a10); acDigestArgument(@encode(T11), &a11); acDigestArgument(@encode(T12), &a12); acDigestArgument(@encode(T13), &a13); acDigestArgument(@encode(T14), &a14);
#define AC_DIGEST_15(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7); acDigestArgument(@encode(T8), &a8); acDigestArgument(@encode(T9), &a9); acDigestArgument(@encode(T10), &a10); acDigestArgument(@encode(T11), &a11); acDigestArgument(@encode(T12), &a12); acDigestArgument(@encode(T13), &a13); acDigestArgument(@encode(T14), &a14); acDigestArgument(@encode(T15), &a15);
#define AC_DIGEST_16(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16) acDigestArgument(@encode(T1), &a1); acDigestArgument(@encode(T2), &a2); acDigestArgument(@encode(T3), &a3); acDigestArgument(@encode(T4), &a4); acDigestArgument(@encode(T5), &a5); acDigestArgument(@encode(T6), &a6); acDigestArgument(@encode(T7), &a7); acDigestArgument(@encode(T8), &a8); acDigestArgument(@encode(T9), &a9); acDigestArgument(@encode(T10), &a10); acDigestArgument(@encode(T11), &a11); acDigestArgument(@encode(T12), &a12); acDigestArgument(@encode(T13), &a13); acDigestArgument(@encode(T14), &a14); acDigestArgument(@encode(T15), &a15); acDigestArgument(@encode(T16), &a16);
#define AC_DIGEST(...) AC_CAT(AC_DIGEST_, AC_COUNT(__VA_ARGS__))(__VA_ARGS__)
#define AC_VALUES_1(T1) T1 v1; acSample(@encode(T1), &v1, seed + 1);
#define AC_VALUES_2(T1, T2) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2);
#define AC_VALUES_3(T1, T2, T3) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3);
#define AC_VALUES_4(T1, T2, T3, T4) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4);
#define AC_VALUES_5(T1, T2, T3, T4, T5) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5);
#define AC_VALUES_6(T1, T2, T3, T4, T5, T6) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6);
#define AC_VALUES_7(T1, T2, T3, T4, T5, T6, T7) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7);
#define AC_VALUES_8(T1, T2, T3, T4, T5, T6, T7, T8) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7); T8 v8; acSample(@encode(T8), &v8, seed + 8);
#define AC_VALUES_9(T1, T2, T3, T4, T5, T6, T7, T8, T9) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7); T8 v8; acSample(@encode(T8), &v8, seed + 8); T9 v9; acSample(@encode(T9), &v9, seed + 9);
#define AC_VALUES_10(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7); T8 v8; acSample(@encode(T8), &v8, seed + 8); T9 v9; acSample(@encode(T9), &v9, seed + 9); T10 v10; acSample(@encode(T10), &v10, seed + 10);
#define AC_VALUES_11(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7); T8 v8; acSample(@encode(T8), &v8, seed + 8); T9 v9; acSample(@encode(T9), &v9, seed + 9); T10 v10; acSample(@encode(T10), &v10, seed + 10); T11 v11; acSample(@encode(T11), &v11, seed + 11);
#define AC_VALUES_12(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7); T8 v8; acSample(@encode(T8), &v8, seed + 8); T9 v9; acSample(@encode(T9), &v9, seed + 9); T10 v10; acSample(@encode(T10), &v10, seed + 10); T11 v11; acSample(@encode(T11), &v11, seed + 11); T12 v12; acSample(@encode(T12), &v12, seed + 12);
#define AC_VALUES_13(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7); T8 v8; acSample(@encode(T8), &v8, seed + 8); T9 v9; acSample(@encode(T9), &v9, seed + 9); T10 v10; acSample(@encode(T10), &v10, seed + 10); T11 v11; acSample(@encode(T11), &v11, seed + 11); T12 v12; acSample(@encode(T12), &v12, seed + 12); T13 v13; acSample(@encode(T13), &v13, seed + 13);
#define AC_VALUES_14(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7); T8 v8; acSample(@encode(T8), &v8, seed + 8); T9 v9; acSample(@encode(T9), &v9, seed + 9); T10 v10; acSample(@encode(T10), &v10, seed + 10); T11 v11; acSample(@encode(T11), &v11, seed + 11); T12 v12; acSample(@encode(T12), &v12, seed + 12); T13 v13; acSample(@encode(T13), &v13, seed + 13); T14 v14; acSample(@encode(T14), &v14, seed + 14);
#define AC_VALUES_15(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7); T8 v8; acSample(@encode(T8), &v8, seed + 8); T9 v9; acSample(@encode(T9), &v9, seed + 9); T10 v10; acSample(@encode(T10), &v10, seed + 10); T11 v11; acSample(@encode(T11), &v11, seed + 11); T12 v12; acSample(@encode(T12), &v12, seed + 12); T13 v13; acSample(@encode(T13), &v13, seed + 13); T14 v14; acSample(@encode(T14), &v14, seed + 14); T15 v15; acSample(@encode(T15), &v15, seed + 15);
#define AC_VALUES_16(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16) T1 v1; acSample(@encode(T1), &v1, seed + 1); T2 v2; acSample(@encode(T2), &v2, seed + 2); T3 v3; acSample(@encode(T3), &v3, seed + 3); T4 v4; acSample(@encode(T4), &v4, seed + 4); T5 v5; acSample(@encode(T5), &v5, seed + 5); T6 v6; acSample(@encode(T6), &v6, seed + 6); T7 v7; acSample(@encode(T7), &v7, seed + 7); T8 v8; acSample(@encode(T8), &v8, seed + 8); T9 v9; acSample(@encode(T9), &v9, seed + 9); T10 v10; acSample(@encode(T10), &v10, seed + 10); T11 v11; acSample(@encode(T11), &v11, seed + 11); T12 v12; acSample(@encode(T12), &v12, seed + 12); T13 v13; acSample(@encode(T13), &v13, seed + 13); T14 v14; acSample(@encode(T14), &v14, seed + 14); T15 v15; acSample(@encode(T15), &v15, seed + 15); T16 v16; acSample(@encode(T16), &v16, seed + 16);
#define AC_VALUES(...) AC_CAT(AC_VALUES_, AC_COUNT(__VA_ARGS__))(__VA_ARGS__)
#define AC_ADDRESSES_1(p) &p##1
#define AC_ADDRESSES_2(p) &p##1, &p##2
#define AC_ADDRESSES_3(p) &p##1, &p##2, &p##3
#define AC_ADDRESSES_4(p) &p##1, &p##2, &p##3, &p##4
#define AC_ADDRESSES_5(p) &p##1, &p##2, &p##3, &p##4, &p##5
#define AC_ADDRESSES_6(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6
#define AC_ADDRESSES_7(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7
#define AC_ADDRESSES_8(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7, &p##8
#define AC_ADDRESSES_9(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7, &p##8, &p##9
#define AC_ADDRESSES_10(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7, &p##8, &p##9, &p##10
#define AC_ADDRESSES_11(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7, &p##8, &p##9, &p##10, &p##11
#define AC_ADDRESSES_12(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7, &p##8, &p##9, &p##10, &p##11, &p##12
#define AC_ADDRESSES_13(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7, &p##8, &p##9, &p##10, &p##11, &p##12, &p##13
#define AC_ADDRESSES_14(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7, &p##8, &p##9, &p##10, &p##11, &p##12, &p##13, &p##14
#define AC_ADDRESSES_15(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7, &p##8, &p##9, &p##10, &p##11, &p##12, &p##13, &p##14, &p##15
#define AC_ADDRESSES_16(p) &p##1, &p##2, &p##3, &p##4, &p##5, &p##6, &p##7, &p##8, &p##9, &p##10, &p##11, &p##12, &p##13, &p##14, &p##15, &p##16
#define AC_ADDRESSES(p, ...) AC_CAT(AC_ADDRESSES_, AC_COUNT(__VA_ARGS__))(p)
#define AC_SEND_1(p) :p##1
#define AC_SEND_2(p) :p##1 :p##2
#define AC_SEND_3(p) :p##1 :p##2 :p##3
#define AC_SEND_4(p) :p##1 :p##2 :p##3 :p##4
#define AC_SEND_5(p) :p##1 :p##2 :p##3 :p##4 :p##5
#define AC_SEND_6(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6
#define AC_SEND_7(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7
#define AC_SEND_8(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7 :p##8
#define AC_SEND_9(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7 :p##8 :p##9
#define AC_SEND_10(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7 :p##8 :p##9 :p##10
#define AC_SEND_11(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7 :p##8 :p##9 :p##10 :p##11
#define AC_SEND_12(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7 :p##8 :p##9 :p##10 :p##11 :p##12
#define AC_SEND_13(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7 :p##8 :p##9 :p##10 :p##11 :p##12 :p##13
#define AC_SEND_14(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7 :p##8 :p##9 :p##10 :p##11 :p##12 :p##13 :p##14
#define AC_SEND_15(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7 :p##8 :p##9 :p##10 :p##11 :p##12 :p##13 :p##14 :p##15
#define AC_SEND_16(p) :p##1 :p##2 :p##3 :p##4 :p##5 :p##6 :p##7 :p##8 :p##9 :p##10 :p##11 :p##12 :p##13 :p##14 :p##15 :p##16
#define AC_SEND(p, ...) AC_CAT(AC_SEND_, AC_COUNT(__VA_ARGS__))(p)
#endif
