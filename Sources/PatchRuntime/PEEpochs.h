/* Epoch-based reclamation: lets the hot path read the dispatcher's layer lists with no lock and no
   reference counting. A reader announces the epoch it entered in; a writer that unlinks a node
   retires it, and the node is destroyed once every reader that might still see it has left. */
#ifndef PE_EPOCHS_H
#define PE_EPOCHS_H

/* Enter and leave a read section (nesting is fine; only the outermost counts). */
void PEEpochEnter(void);
void PEEpochExit(void);
/* Destroys `item` with `destroy` once no reader that entered before this call is still inside;
   maybe now, maybe at a later retire. Must not be called with locks that `destroy` or readers
   need (destroy may release blocks, which can run JavaScript). */
void PEEpochRetire(void *item, void (*destroy)(void *));

#endif
