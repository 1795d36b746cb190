/* The conversion corpus (Tests/PatchAuthoringTests/ConversionCorpusTests.swift): Objective-C
   methods, one construct each, that `patchctl convert` turns into patches of themselves. The
   tests call each method natively and patched and compare. */
#ifndef CONVERSION_CORPUS_H
#define CONVERSION_CORPUS_H

/* Keeps the corpus classes linked into the test executable. */
int cc_corpus_class_count(void);
int cc_silent_class_count(void);
int cc_protocols_class_count(void);

#endif
