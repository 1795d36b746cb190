/* Inheritance and super-chain fixtures. String-returning methods are reached with the
   generic pf_new_send(className, selector).

   Inheritance (PFHierarchy.m):
     PFAnimal            -sound "..."   -name "animal"   -legs 4   -describe "<name> says <sound>"
       PFDog             -sound "woof"
         PFPuppy         -name "puppy"
       PFCat             -sound "meow"
       PFBird            -legs 2

   Super chains (PFSuperChain.m), each -method:
     PFSuperA "A";  PFSuperB "B";  PFSuperB1 : PFSuperB  [super method] + "1"
     PFSuperC "C";  PFSuperC1 : PFSuperC  [super method] + "1";  PFSuperC2 : PFSuperC1  [super method] + "2"
     Three identical families for patches of several levels at once (one family per test):
     PF<F>Base "base";  PF<F>Mid : PF<F>Base  [super method] + ">mid";  PF<F>Leaf : PF<F>Mid  [super method] + ">leaf"
     for F in Chain, Loop, Late, Deep, Thread, Revert. */
#ifndef PF_HIERARCHY_FIXTURE_H
#define PF_HIERARCHY_FIXTURE_H

/* -legs (int) of a new instance of className, called natively. */
int pf_animal_legs(const char *className);

#endif
