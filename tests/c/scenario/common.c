/* The scenario's reporting helpers, small helpers over the ABI and C-side objects. */
#include "scenario.h"

/* ------------------------------------------------------------------------------------------ */
/* Reporting                                                                                   */
/* ------------------------------------------------------------------------------------------ */

/* Labels for dynamic type indices (>= 128), which differ between runtimes and runs. */
static struct {
  int32_t index;
  const char* label;
} g_dyn[16];
static int g_num_dyn = 0;

void register_dyn(int32_t index, const char* label) {
  if (g_num_dyn < 16) {
    g_dyn[g_num_dyn].index = index;
    g_dyn[g_num_dyn].label = label;
    ++g_num_dyn;
  }
}

/* Rotating output buffers, so several formatted values can appear in one printf. */
static char g_bufs[8][4096];
static int g_buf_next = 0;

char* next_buf(void) {
  char* b = g_bufs[g_buf_next];
  g_buf_next = (g_buf_next + 1) % 8;
  return b;
}

/* A type index for the transcript: static ones as numbers, dynamic ones by label. */
const char* tidx(int32_t index) {
  char* b = next_buf();
  if (index < kTVMFFIDynObjectBegin) {
    snprintf(b, 4096, "%d", index);
    return b;
  }
  for (int i = 0; i < g_num_dyn; ++i) {
    if (g_dyn[i].index == index) {
      snprintf(b, 4096, "<%s>", g_dyn[i].label);
      return b;
    }
  }
  snprintf(b, 4096, "dyn");
  return b;
}

/*
 * Quotes and escapes bytes for the transcript (one line per check): \n, \t, \\, \" and
 * non-printable bytes are escaped. Decimal numbers that equal a labelled dynamic type index
 * are replaced by the label.
 */
const char* quote(const char* data, size_t size) {
  char* b = next_buf();
  size_t o = 0;
  const size_t cap = 4096 - 16;
  b[o++] = '"';
  for (size_t i = 0; i < size && o < cap; ++i) {
    unsigned char c = (unsigned char)data[i];
    if (c >= '0' && c <= '9' && (i == 0 || data[i - 1] < '0' || data[i - 1] > '9')) {
      size_t j = i;
      int64_t v = 0;
      while (j < size && data[j] >= '0' && data[j] <= '9' && j - i < 12) {
        v = v * 10 + (data[j] - '0');
        ++j;
      }
      int replaced = 0;
      if (j == size || data[j] < '0' || data[j] > '9') {
        for (int k = 0; k < g_num_dyn; ++k) {
          if (g_dyn[k].index == v) {
            o += (size_t)snprintf(b + o, 4096 - o, "<%s>", g_dyn[k].label);
            replaced = 1;
            break;
          }
        }
      }
      if (replaced) {
        i = j - 1;
        continue;
      }
    }
    if (c == '\n') {
      b[o++] = '\\';
      b[o++] = 'n';
    } else if (c == '\t') {
      b[o++] = '\\';
      b[o++] = 't';
    } else if (c == '\\' || c == '"') {
      b[o++] = '\\';
      b[o++] = (char)c;
    } else if (c < 0x20 || c >= 0x7f) {
      o += (size_t)snprintf(b + o, 4096 - o, "\\x%02x", c);
    } else {
      b[o++] = (char)c;
    }
  }
  b[o++] = '"';
  b[o] = '\0';
  return b;
}

const char* qba(TVMFFIByteArray a) { return quote(a.data, a.size); }
const char* same(const void* a, const void* b) { return a == b ? "same" : "other"; }

/* ------------------------------------------------------------------------------------------ */
/* Small helpers over the ABI                                                                  */
/* ------------------------------------------------------------------------------------------ */

TVMFFIByteArray ba(const char* s) {
  TVMFFIByteArray r;
  r.data = s;
  r.size = strlen(s);
  return r;
}

int ba_eq(TVMFFIByteArray a, const char* s) {
  size_t n = strlen(s);
  return a.size == n && (n == 0 || memcmp(a.data, s, n) == 0);
}

int ba_eq_n(TVMFFIByteArray a, const char* s, size_t n) {
  return a.size == n && (n == 0 || memcmp(a.data, s, n) == 0);
}

uint64_t refcount_word(void* obj) {
  return __atomic_load_n(&((TVMFFIObject*)obj)->combined_ref_count, __ATOMIC_ACQUIRE);
}
uint32_t strong_of(void* obj) { return (uint32_t)(refcount_word(obj) & 0xffffffffu); }
uint32_t weak_of(void* obj) { return (uint32_t)(refcount_word(obj) >> 32); }

/* The content of a String/Bytes value (small or heap) held in an Any. */
TVMFFIByteArray any_bytes(const TVMFFIAny* a) {
  TVMFFIByteArray r = {NULL, 0};
  if (a->type_index == kTVMFFISmallStr || a->type_index == kTVMFFISmallBytes) {
    r.data = a->v_bytes;
    r.size = a->small_str_len;
  } else if (a->type_index == kTVMFFIStr || a->type_index == kTVMFFIBytes) {
    r = *(TVMFFIByteArray*)((char*)a->v_obj + sizeof(TVMFFIObject));
  }
  return r;
}

/* A runtime-created String (SmallStr or Str) holding s. */
TVMFFIAny make_string(const char* s) {
  TVMFFIAny out = any_none();
  TVMFFIByteArray in = ba(s);
  if (TVMFFIStringFromByteArray(&in, &out) != 0) {
    fprintf(stderr, "TVMFFIStringFromByteArray failed\n");
    exit(2);
  }
  return out;
}

TVMFFIErrorCell* error_cell(void* err) {
  return (TVMFFIErrorCell*)((char*)err + sizeof(TVMFFIObject));
}

TVMFFIFunctionCell* function_cell(void* f) {
  return (TVMFFIFunctionCell*)((char*)f + sizeof(TVMFFIObject));
}

/* Takes the raised error out of the thread-local slot (NULL if none). */
void* take_raised(void) {
  void* err = (void*)0x1; /* must be overwritten */
  TVMFFIErrorMoveFromRaised(&err);
  return err;
}

/*
 * Checks that a call failed with rc -1 and raised an Error of the given kind and message
 * (message NULL: only the kind is compared), prints kind and message, releases the error and
 * checks that the slot is empty again.
 */
void expect_error(const char* name, int rc, const char* kind, const char* message, const char* file,
                  int line) {
  void* err = take_raised();
  if (err == NULL) {
    check_at(0, file, line, name, "rc=%d no error raised", rc);
    return;
  }
  TVMFFIErrorCell* cell = error_cell(err);
  int ok = rc == -1 && ((TVMFFIObject*)err)->type_index == kTVMFFIError &&
           ba_eq(cell->kind, kind) && (message == NULL || ba_eq(cell->message, message));
  if (message == NULL) {
    check_at(ok, file, line, name, "rc=%d type_index=%d kind=%s", rc, ((TVMFFIObject*)err)->type_index,
               qba(cell->kind));
  } else {
    check_at(ok, file, line, name, "rc=%d type_index=%d kind=%s message=%s", rc,
               ((TVMFFIObject*)err)->type_index, qba(cell->kind), qba(cell->message));
  }
  TVMFFIObjectDecRef(err);
  void* again = take_raised();
  if (again != NULL) {
    check_at(0, file, line, name, "error slot not empty after MoveFromRaised");
    TVMFFIObjectDecRef(again);
  }
}

/* Fails the check (and prints the raised error) when a call that should succeed returned != 0. */
void expect_ok(const char* name, int rc, const char* fmt_detail, const char* file, int line) {
  if (rc == 0) return;
  void* err = take_raised();
  if (err != NULL) {
    check_at(0, file, line, name, "rc=%d kind=%s message=%s (%s)", rc, qba(error_cell(err)->kind),
               qba(error_cell(err)->message), fmt_detail);
    TVMFFIObjectDecRef(err);
  } else {
    check_at(0, file, line, name, "rc=%d (%s)", rc, fmt_detail);
  }
}

/* Looks up a global function: new reference or NULL. */
void* get_global(const char* name) {
  TVMFFIByteArray n = ba(name);
  void* f = (void*)0x1;
  if (TVMFFIFunctionGetGlobal(&n, &f) != 0) {
    void* err = take_raised();
    if (err) TVMFFIObjectDecRef(err);
    return NULL;
  }
  return f;
}

/* Calls a global function with a single string argument. */
int call_global_str(const char* fname, const char* arg, TVMFFIAny* rv) {
  void* f = get_global(fname);
  *rv = any_none();
  if (f == NULL) {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "scenario: global function missing");
    return -1;
  }
  TVMFFIAny s = make_string(arg);
  int rc = TVMFFIFunctionCall(f, &s, 1, rv);
  any_release(&s);
  TVMFFIObjectDecRef(f);
  return rc;
}

/* Runs fn(arg) on a new pthread and waits for it. */
void run_in_thread(void* (*fn)(void*), void* arg) {
  pthread_t t;
  if (pthread_create(&t, NULL, fn, arg) != 0) {
    fprintf(stderr, "pthread_create failed\n");
    exit(2);
  }
  pthread_join(t, NULL);
}

/* ------------------------------------------------------------------------------------------ */
/* C-side objects: our own header + deleter                                                    */
/* ------------------------------------------------------------------------------------------ */


int g_cobj_flags[16];
int g_cobj_num_flags = 0;

void cobj_record(int flags) {
  if (g_cobj_num_flags < 16) g_cobj_flags[g_cobj_num_flags++] = flags;
}

const char* cobj_flag_list(void) {
  char* b = next_buf();
  size_t o = 0;
  b[o++] = '[';
  for (int i = 0; i < g_cobj_num_flags; ++i) {
    o += (size_t)snprintf(b + o, 4096 - o, i ? ",%d" : "%d", g_cobj_flags[i]);
  }
  b[o++] = ']';
  b[o] = '\0';
  return b;
}

/* Records every flag; frees the memory once the weak side is gone. */
void cobj_deleter(void* self, int flags) {
  cobj_record(flags);
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

/* Like cobj_deleter, but while destroying the strong side it drops one weak reference that
   the test added by hand (a weak holder letting go during destruction). */
void cobj_deleter_drop_weak(void* self, int flags) {
  cobj_record(flags);
  if (flags == kTVMFFIObjectDeleterFlagBitMaskStrong) {
    __atomic_fetch_sub(&((TVMFFIObject*)self)->combined_ref_count, (uint64_t)1 << 32,
                       __ATOMIC_ACQ_REL);
  }
  if (flags & kTVMFFIObjectDeleterFlagBitMaskWeak) free(self);
}

CObj* cobj_new(void (*deleter)(void*, int)) {
  CObj* o = (CObj*)calloc(1, sizeof(CObj));
  o->header.combined_ref_count = ((uint64_t)1 << 32) | 1u; /* strong 1, weak 1 */
  o->header.type_index = kTVMFFIObject;
  o->header.deleter = deleter;
  o->payload = 42;
  return o;
}

/* A foreign (C-allocated) function object: header + TVMFFIFunctionCell, never freed. */

int g_cfunc_deleted = 0;
void cfunc_deleter(void* self, int flags) {
  (void)self;
  (void)flags;
  ++g_cfunc_deleted;
}
