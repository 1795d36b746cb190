/* The delegate tracker and its swizzle cycle: a tracker that instruments collection-view delegates when
   -setDelegate: is called, against a "third-party" delegate base class and its subclasses.

   Families F = PFS4_1 ... PFS4_16 (one per test):
     F##CollectionView : NSObject   -setDelegate:(id) (assign), -delegate,
                                    -selectItemAtIndexPath:(id)ip sends the delegate
                                    -collectionView:self didSelectItemAtIndexPath:ip
     F##ThirdPartyView : NSObject   the third-party view that is a collection view delegate:
                                    -collectionView:didSelectItemAtIndexPath: logs "ThirdParty(<ip>)"
     F##MyView : ThirdPartyView      the app's subclass; overrides nothing
     F##MyGrandView : MyView         overrides nothing
     F##OtherView : ThirdPartyView   a sibling of MyView; overrides nothing

   Every tracking layer counts its nesting on the calling thread: past PF_S4_CYCLE_LIMIT nested
   calls it logs "cycle(<limit>)" and returns instead of recursing, so a cycle is reported, not a
   stack overflow. */
#ifndef PF_DELEGATE_TRACKER_FIXTURE_H
#define PF_DELEGATE_TRACKER_FIXTURE_H

#define PF_S4_CYCLE_LIMIT 50

/* The article's tracker: HZ_swizzleMethod:newSel: (class_addMethod, then class_replaceMethod or
   method_exchangeImplementations) on -setDelegate: of the family's collection view, and on the
   delegate's class the first time each class is seen. Its layer logs "track". Once per family. */
void pf_s4_begin_naive_tracker(const char *family);

/* The same tracker on the toolkit: kind 0 = PESwizzle, once per class; 1 = PESwizzle, once per
   class and superclasses; 2 = Aspects-style Before hooks (one per delegate class). Its layers log
   "track@<class the layer was installed on>". pf_s4_end_tracker removes every layer it added. */
void pf_s4_begin_safe_tracker(const char *family, int kind);
void pf_s4_end_tracker(const char *family);

/* [collectionView setDelegate:delegate] / [collectionView selectItemAtIndexPath:ip], natively.
   NULL, or "!Name: reason" if it raised. */
char *pf_s4_set_delegate(void *collectionView, void *delegate);
char *pf_s4_select(void *collectionView, const char *indexPath);
/* [delegate collectionView:nil didSelectItemAtIndexPath:ip] directly, without a collection view. */
char *pf_s4_did_select(void *delegate, const char *indexPath);

/* Registers a new subclass of `superclassName` at run time (overriding nothing), as an app
   subclassing the third-party view after the tracker started. 1 on success. */
int pf_s4_make_subclass(const char *superclassName, const char *name);

#endif
