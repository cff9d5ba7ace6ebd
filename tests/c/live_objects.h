/* ffihub's live-object counter for the C test programs: the global `ffihub.LiveObjectCount`
 * counts the objects the runtime allocated and has not freed yet; Apache's runtime has no such
 * global, so every check passes there with the same transcript line. Include after check.h. */
#ifndef FFIHUB_TESTS_C_LIVE_OBJECTS_H_
#define FFIHUB_TESTS_C_LIVE_OBJECTS_H_

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tvm/ffi/c_api.h>

/* The counter function (a new reference), or NULL on a runtime without one. */
static inline void* live_counter(void) {
  TVMFFIByteArray name = {"ffihub.LiveObjectCount", strlen("ffihub.LiveObjectCount")};
  void* counter = NULL;
  if (TVMFFIFunctionGetGlobal(&name, &counter) != 0) {
    void* err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (err) TVMFFIObjectDecRef(err);
    return NULL;
  }
  return counter;
}

/* The count now: 0 without a counter, -1 when reading it failed. */
static inline int64_t live_object_count(void* counter) {
  if (counter == NULL) return 0;
  TVMFFIAny rv;
  memset(&rv, 0, sizeof rv);
  if (TVMFFIFunctionCall(counter, NULL, 0, &rv) != 0 || rv.type_index != kTVMFFIInt) {
    void* err = NULL;
    TVMFFIErrorMoveFromRaised(&err);
    if (err) TVMFFIObjectDecRef(err);
    if (rv.type_index >= kTVMFFIStaticObjectBegin) TVMFFIObjectDecRef(rv.v_obj);
    return -1;
  }
  return rv.v_int64;
}

/* The end-of-run check `name` that the count is back at `start` (the numbers go to stderr);
 * releases the counter. */
static inline void check_live_objects_at_end(void* counter, int64_t start, const char* name,
                                             const char* detail) {
  if (counter == NULL) {
    CHECK(1, name, "%s", detail);
    return;
  }
  int64_t end = live_object_count(counter);
  if (start < 0 || end != start) {
    fprintf(stderr, "live objects: start=%lld end=%lld\n", (long long)start, (long long)end);
  }
  CHECK(start >= 0 && end == start, name, "%s", detail);
  TVMFFIObjectDecRef(counter);
}

#endif /* FFIHUB_TESTS_C_LIVE_OBJECTS_H_ */
