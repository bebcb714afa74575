#ifndef CLUASHIM_H
#define CLUASHIM_H
// The C half of LuaSandbox.
//
// 1. Lua's function-like API macros re-declared as `static inline` functions (Swift cannot import
//    function-like macros). Each one is exactly the macro's expansion.
// 2. The parts of the sandbox that must be C: the capped allocator, the count hook, the message
//    handler, the error trampoline for Swift callbacks, the guarded globals. See shim.c.
#include <stddef.h>
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>

// MARK: - Macro wrappers

static inline int rh_lua_registryindex(void) { return LUA_REGISTRYINDEX; }
static inline int rh_lua_upvalueindex(int i) { return lua_upvalueindex(i); }
static inline int rh_lua_multret(void) { return LUA_MULTRET; }

static inline int rh_lua_pcall(lua_State *L, int nargs, int nresults, int msgh) {
    return lua_pcall(L, nargs, nresults, msgh);
}
static inline void rh_lua_call(lua_State *L, int nargs, int nresults) { lua_call(L, nargs, nresults); }
static inline const char *rh_lua_tostring(lua_State *L, int idx) { return lua_tostring(L, idx); }
static inline lua_Number rh_lua_tonumber(lua_State *L, int idx) { return lua_tonumber(L, idx); }
static inline lua_Integer rh_lua_tointeger(lua_State *L, int idx) { return lua_tointeger(L, idx); }
static inline void rh_lua_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void rh_lua_newtable(lua_State *L) { lua_newtable(L); }
static inline void rh_lua_pushcfunction(lua_State *L, lua_CFunction f) { lua_pushcfunction(L, f); }
static inline void rh_lua_pushglobaltable(lua_State *L) { lua_pushglobaltable(L); }
static inline void rh_lua_insert(lua_State *L, int idx) { lua_insert(L, idx); }
static inline void rh_lua_remove(lua_State *L, int idx) { lua_remove(L, idx); }
static inline void rh_lua_replace(lua_State *L, int idx) { lua_replace(L, idx); }
static inline void *rh_lua_getextraspace(lua_State *L) { return lua_getextraspace(L); }
static inline void *rh_lua_newuserdata(lua_State *L, size_t size) { return lua_newuserdata(L, size); }
static inline int rh_luaL_getmetatable(lua_State *L, const char *tname) { return luaL_getmetatable(L, tname); }
static inline const char *rh_luaL_checkstring(lua_State *L, int arg) { return luaL_checkstring(L, arg); }
static inline const char *rh_luaL_typename(lua_State *L, int idx) { return luaL_typename(L, idx); }
static inline int rh_lua_isnil(lua_State *L, int idx) { return lua_isnil(L, idx); }
static inline int rh_lua_isnone(lua_State *L, int idx) { return lua_isnone(L, idx); }
static inline int rh_lua_isnoneornil(lua_State *L, int idx) { return lua_isnoneornil(L, idx); }
static inline int rh_lua_istable(lua_State *L, int idx) { return lua_istable(L, idx); }
static inline int rh_lua_isfunction(lua_State *L, int idx) { return lua_isfunction(L, idx); }
static inline int rh_lua_isboolean(lua_State *L, int idx) { return lua_isboolean(L, idx); }
static inline int rh_lua_isthread(lua_State *L, int idx) { return lua_isthread(L, idx); }
static inline int rh_lua_islightuserdata(lua_State *L, int idx) { return lua_islightuserdata(L, idx); }

// MARK: - Sandbox control block

/// Per-state limits and host callbacks. It is the allocator's `ud`, so C code finds it from any
/// thread (coroutine) of the state with `lua_getallocf`. Opaque to Swift: fields are reached
/// through the functions below; `rh_control_cancel` is the only one safe from another thread.
typedef struct rh_control rh_control;

/// Swift entry for every host function. Returns the number of results (>= 0), or one of the
/// RH_RAISE_* codes with the error value pushed: the C trampoline then raises it after Swift
/// has returned, so a Lua error never unwinds Swift frames.
typedef int (*rh_dispatch_fn)(lua_State *L, void *host, void *box);
/// Releases one retained Swift object (host userdata payload or function box).
typedef void (*rh_release_fn)(void *object);
/// Receives `print` lines and `warn` messages.
typedef void (*rh_text_fn)(void *host, const char *text, size_t len);

#define RH_RAISE -1            /* raise the value on top as is */
#define RH_RAISE_WITH_WHERE -2 /* prefix the string on top with "chunk:line: " and raise */

#define RH_TRIP_NONE 0
#define RH_TRIP_TIME 1
#define RH_TRIP_INSTRUCTIONS 2
#define RH_TRIP_INTERRUPTED 3

rh_control *rh_control_new(void);
void rh_control_free(rh_control *c);
void rh_control_set_callbacks(rh_control *c, rh_dispatch_fn dispatch, rh_release_fn release,
                              rh_text_fn output, rh_text_fn warning);
void rh_control_set_host(rh_control *c, void *host);
/// 0 = unlimited.
void rh_control_set_memory_limit(rh_control *c, size_t bytes);
size_t rh_control_memory_used(const rh_control *c);
/// The cap is enforced only while script code runs (1); host code (0) is never refused memory,
/// so Swift never sees an allocation error longjmp.
void rh_control_set_enforce(rh_control *c, int enforce);
int rh_control_enforce(const rh_control *c);
void rh_control_set_output_limit(rh_control *c, size_t bytes);
/// Arms the hook for one outermost call. instructions < 0: no budget; seconds < 0: no deadline.
/// Clears a pending cancel request.
void rh_control_arm(rh_control *c, long long instructions, double seconds);
/// Disarms, clears the trip and the cancel flag, restores the main thread's normal hook.
void rh_control_disarm(rh_control *c);
int rh_control_tripped(const rh_control *c);
/// Async-signal-safe and thread-safe: one atomic store.
void rh_control_cancel(rh_control *c);
/// Whether a cancel was requested since the call was armed (a host wait polls it).
int rh_control_cancel_requested(rh_control *c);
/// Moves the armed call's deadline `seconds` later: time the host spent waiting outside Lua.
void rh_control_extend_deadline(rh_control *c, double seconds);
/// Registry references dropped on any thread are queued and released by the owning thread.
void rh_control_defer_unref(rh_control *c, int ref);
void rh_control_drain_unrefs(rh_control *c, lua_State *L);
void rh_control_mark_closed(rh_control *c);

/// A state with the capped allocator, the hook, the panic and warning handlers and the sandboxed
/// libraries. NULL when it cannot be created.
lua_State *rh_newstate(rh_control *c);

// MARK: - Calls and errors

/// lua_pcall with the sandbox message handler. On LUA_ERRRUN the error on top is a record
/// (original value, message, traceback); use rh_unpack_error.
int rh_pcall_traced(lua_State *L, int nargs, int nresults);
/// Replaces the error value on top with three values: original value, message string,
/// traceback string or nil. Works for records and for raw values (syntax, memory errors).
void rh_unpack_error(lua_State *L);
/// Remembers the value on top (left in place) as a sandbox violation, see rh_is_sandbox_error.
void rh_mark_sandbox_error(lua_State *L);
int rh_is_sandbox_error(lua_State *L, int idx);
/// Pushes "chunk:line: bad argument #arg to 'name' (extramsg)" without raising.
void rh_push_argerror(lua_State *L, int arg, const char *extramsg);
/// Pushes "...bad argument #arg to 'name' (tname expected, got <type>)" without raising.
void rh_push_typeerror(lua_State *L, int arg, const char *tname);

// MARK: - Host functions and userdata

/// Pushes a C closure whose upvalue owns `box` (released by __gc); calls go through the dispatcher.
void rh_push_swift_function(lua_State *L, void *box);
/// Creates the named metatable for host objects with the host's __gc and a __metatable lock and
/// leaves it on the stack. Returns 0 (nothing pushed) when the name is taken.
int rh_new_object_metatable(lua_State *L, const char *tname);
/// Pushes a full userdata holding `object` with the named metatable. Returns 0 (nothing pushed)
/// when no such metatable exists.
int rh_push_object(lua_State *L, void *object, const char *tname);
/// The object held by the userdata at idx if it has the named metatable, else NULL.
void *rh_test_object(lua_State *L, int idx, const char *tname);
/// Pops a methods table and a fallback function, pushes an __index function that looks up the
/// methods first (raw) and calls the fallback with (self, key) otherwise.
void rh_push_index_with_methods(lua_State *L);

// MARK: - Misc

void rh_gc_collect(lua_State *L);
/// Lua's own count of bytes in use.
size_t rh_gc_count_bytes(lua_State *L);

#endif
