/* The scenario's entry point: runs every area in order, then the end-of-run checks. */
#include "scenario.h"
#include "../live_objects.h"

int g_failures = 0;

int main(void) {
  void* live = live_counter();
  int64_t live_start = live_object_count(live);

  test_version();
  test_refcount();
  test_opaque();
  test_strings();
  test_any_view_to_owned();
  test_bigint();
  test_dtype();
  test_errors();
  test_backtrace();
  test_functions();
  test_globals();
  test_type_indices();
  test_type_info();
  test_fields();
  test_metadata_and_accessors();
  test_attrs();
  test_streams();
  test_dlpack_allocator();
  test_env_misc();
  test_custom_allocator();
  test_init_once();

  void* leftover = take_raised();
  CHECK(leftover == NULL, "end.error-slot-empty", "slot=%s", leftover ? "set" : "empty");
  if (leftover) TVMFFIObjectDecRef(leftover);

  check_live_objects_at_end(live, live_start, "live-object check:", "done");

  return check_summary();
}
