// The parts of the Lua sandbox that must be written in C.
// Rules this file keeps (see docs/LUA-SANDBOX.md):
//  * no Lua error ever unwinds a Swift frame: Swift callbacks return a status and the trampoline
//    raises after Swift has returned;
//  * script code runs under a memory cap, an instruction budget, a deadline and a cancel flag;
//  * globals that could escape the limits (finalizers, pathological patterns, binary chunks) are
//    guarded or absent.
#define _POSIX_C_SOURCE 200809L
#include "CLuaShim.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RH_HOOK_COUNT 1000        /* instructions between two hook calls */
#define RH_MAX_PATTERN 256        /* bytes of a pattern */
#define RH_MAX_SUBJECT 4096       /* bytes of a subject matched by a backtracking pattern */
#define RH_MAX_CHUNK (1 << 20)    /* bytes of a chunk given to the sandboxed load */
#define RH_MAX_PRODUCT (1 << 30)  /* subject bytes x pattern bytes of one match call */
#define RH_MAX_TABLE_LOOP (1 << 24) /* elements a table function may walk in C */
#define RH_WARN_BUFFER 4096

static const char *const RH_SANDBOX_ERROR_KEY = "rh.sandboxerror";
static const char *const RH_ERROR_RECORD = "rh.errorrecord";
static const char *const RH_FUNCTION_BOX = "rh.function";

struct rh_control {
    /* allocator */
    size_t used;
    size_t cap;                 /* 0: unlimited */
    int enforce;                /* cap applies only while script code runs */
    /* hook */
    int armed;
    int budget_on;
    long long budget_left;
    int deadline_on;
    struct timespec deadline;
    atomic_int cancel;
    int tripped;
    lua_State *main;
    /* host */
    rh_dispatch_fn dispatch;
    rh_release_fn release;
    rh_text_fn output;
    rh_text_fn warning;
    void *host;
    size_t output_cap;
    /* warnings arrive in pieces */
    char warnbuf[RH_WARN_BUFFER];
    size_t warnlen;
    int warncont;
    /* registry references released from other threads */
    pthread_mutex_t lock;
    int *pending;
    size_t npending, cappending;
    int closed;
};

static int call_original(lua_State *L);

static rh_control *control_of(lua_State *L) {
    void *ud = NULL;
    (void)lua_getallocf(L, &ud);
    return (rh_control *)ud;
}

// MARK: - Control block

rh_control *rh_control_new(void) {
    rh_control *c = calloc(1, sizeof(rh_control));
    if (c == NULL) return NULL;
    atomic_init(&c->cancel, 0);
    pthread_mutex_init(&c->lock, NULL);
    c->output_cap = 64 * 1024;
    return c;
}

void rh_control_free(rh_control *c) {
    if (c == NULL) return;
    pthread_mutex_destroy(&c->lock);
    free(c->pending);
    free(c);
}

void rh_control_set_callbacks(rh_control *c, rh_dispatch_fn dispatch, rh_release_fn release,
                              rh_text_fn output, rh_text_fn warning) {
    c->dispatch = dispatch;
    c->release = release;
    c->output = output;
    c->warning = warning;
}

void rh_control_set_host(rh_control *c, void *host) { c->host = host; }
void rh_control_set_memory_limit(rh_control *c, size_t bytes) { c->cap = bytes; }
size_t rh_control_memory_used(const rh_control *c) { return c->used; }
void rh_control_set_enforce(rh_control *c, int enforce) { c->enforce = enforce; }
int rh_control_enforce(const rh_control *c) { return c->enforce; }
void rh_control_set_output_limit(rh_control *c, size_t bytes) { c->output_cap = bytes; }
int rh_control_tripped(const rh_control *c) { return c->tripped; }

void rh_control_cancel(rh_control *c) { atomic_store(&c->cancel, 1); }

int rh_control_cancel_requested(rh_control *c) { return atomic_load(&c->cancel); }

void rh_control_extend_deadline(rh_control *c, double seconds) {
    if (!c->deadline_on || !(seconds > 0)) return;
    double whole = (double)(long long)seconds;
    c->deadline.tv_sec += (time_t)whole;
    c->deadline.tv_nsec += (long)((seconds - whole) * 1e9);
    if (c->deadline.tv_nsec >= 1000000000L) {
        c->deadline.tv_sec += 1;
        c->deadline.tv_nsec -= 1000000000L;
    }
}

static void rh_hook(lua_State *L, lua_Debug *ar);

void rh_control_arm(rh_control *c, long long instructions, double seconds) {
    c->tripped = RH_TRIP_NONE;
    atomic_store(&c->cancel, 0);
    c->budget_on = instructions >= 0;
    c->budget_left = instructions;
    c->deadline_on = seconds >= 0;
    if (c->deadline_on) {
        clock_gettime(CLOCK_MONOTONIC, &c->deadline);
        double whole = (double)(long long)seconds;
        c->deadline.tv_sec += (time_t)whole;
        c->deadline.tv_nsec += (long)((seconds - whole) * 1e9);
        if (c->deadline.tv_nsec >= 1000000000L) {
            c->deadline.tv_sec += 1;
            c->deadline.tv_nsec -= 1000000000L;
        }
    }
    c->armed = 1;
}

void rh_control_disarm(rh_control *c) {
    c->armed = 0;
    c->tripped = RH_TRIP_NONE;
    atomic_store(&c->cancel, 0);
    if (c->main != NULL) lua_sethook(c->main, rh_hook, LUA_MASKCOUNT, RH_HOOK_COUNT);
}

void rh_control_defer_unref(rh_control *c, int ref) {
    pthread_mutex_lock(&c->lock);
    if (!c->closed) {
        if (c->npending == c->cappending) {
            size_t n = c->cappending ? c->cappending * 2 : 16;
            int *p = realloc(c->pending, n * sizeof(int));
            if (p != NULL) {
                c->pending = p;
                c->cappending = n;
            }
        }
        if (c->npending < c->cappending) c->pending[c->npending++] = ref; /* else: leaked slot */
    }
    pthread_mutex_unlock(&c->lock);
}

void rh_control_drain_unrefs(rh_control *c, lua_State *L) {
    pthread_mutex_lock(&c->lock);
    int *refs = c->pending;
    size_t n = c->npending;
    c->pending = NULL;
    c->npending = c->cappending = 0;
    pthread_mutex_unlock(&c->lock);
    for (size_t i = 0; i < n; i++) luaL_unref(L, LUA_REGISTRYINDEX, refs[i]);
    free(refs);
}

void rh_control_mark_closed(rh_control *c) {
    pthread_mutex_lock(&c->lock);
    c->closed = 1;
    c->host = NULL;
    c->main = NULL;
    pthread_mutex_unlock(&c->lock);
}

// MARK: - Allocator

/// realloc with a cap. Only growth is refused (Lua turns NULL into a catchable "not enough
/// memory" after an emergency collection); shrinking and freeing never fail.
static void *rh_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    rh_control *c = (rh_control *)ud;
    size_t old = ptr != NULL ? osize : 0; /* for a new block osize is a type tag */
    if (nsize == 0) {
        free(ptr);
        c->used -= old;
        return NULL;
    }
    if (nsize > old && c->enforce && c->cap != 0 && c->used - old + nsize > c->cap) return NULL;
    void *block = realloc(ptr, nsize);
    if (block == NULL) {
        if (ptr == NULL || nsize > old) return NULL;
        block = ptr; /* a failed shrink keeps the old, larger block */
    }
    c->used = c->used - old + nsize;
    return block;
}

// MARK: - Hook

static int deadline_passed(const rh_control *c) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec != c->deadline.tv_sec) return now.tv_sec > c->deadline.tv_sec;
    return now.tv_nsec >= c->deadline.tv_nsec;
}

/// Installed once on the main thread at creation, so every coroutine inherits it (a coroutine
/// copies its creator's hook at creation time). Does nothing unless a call is armed. Once
/// tripped it runs on every line and instruction and raises each time, so a script's pcall
/// cannot swallow the stop.
static void rh_hook(lua_State *L, lua_Debug *ar) {
    rh_control *c = control_of(L);
    int reason = c->tripped;
    if (!c->armed) {
        if (lua_gethookcount(L) != RH_HOOK_COUNT || lua_gethookmask(L) != LUA_MASKCOUNT)
            lua_sethook(L, rh_hook, LUA_MASKCOUNT, RH_HOOK_COUNT);
        return;
    }
    if (reason == RH_TRIP_NONE) {
        if (ar->event == LUA_HOOKCOUNT) c->budget_left -= lua_gethookcount(L);
        if (lua_gethookcount(L) != RH_HOOK_COUNT || lua_gethookmask(L) != LUA_MASKCOUNT)
            lua_sethook(L, rh_hook, LUA_MASKCOUNT, RH_HOOK_COUNT); /* left over from an old trip */
        if (atomic_load(&c->cancel))
            reason = RH_TRIP_INTERRUPTED;
        else if (c->budget_on && c->budget_left <= 0)
            reason = RH_TRIP_INSTRUCTIONS;
        else if (c->deadline_on && deadline_passed(c))
            reason = RH_TRIP_TIME;
    }
    if (reason == RH_TRIP_NONE) return;
    c->tripped = reason;
    lua_sethook(L, rh_hook, LUA_MASKLINE | LUA_MASKCOUNT, 1);
    if (c->main != NULL && c->main != L) lua_sethook(c->main, rh_hook, LUA_MASKLINE | LUA_MASKCOUNT, 1);
    /* Where the script was: in a hook, level 0 is the function the hook interrupted (luaL_error
       would name level 1, its caller). Empty when that is a C function. */
    luaL_where(L, 0);
    switch (reason) {
    case RH_TRIP_TIME: lua_pushliteral(L, "script exceeded its time limit"); break;
    case RH_TRIP_INSTRUCTIONS: lua_pushliteral(L, "script exceeded its instruction limit"); break;
    default: lua_pushliteral(L, "interrupted"); break;
    }
    lua_concat(L, 2);
    lua_error(L);
}

// MARK: - Panic and warnings

static int rh_panic(lua_State *L) {
    const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "(not a string)";
    fprintf(stderr, "LuaSandbox: unprotected Lua error (a host bug): %s\n", msg);
    fflush(stderr);
    abort();
    return 0;
}

static void rh_warnf(void *ud, const char *msg, int tocont) {
    rh_control *c = (rh_control *)ud;
    if (!c->warncont && !tocont && msg[0] == '@') return; /* control message such as "@on" */
    size_t len = strlen(msg);
    size_t room = sizeof(c->warnbuf) - c->warnlen;
    if (len > room) len = room;
    memcpy(c->warnbuf + c->warnlen, msg, len);
    c->warnlen += len;
    c->warncont = tocont;
    if (!tocont) {
        if (c->warning != NULL && c->host != NULL) c->warning(c->host, c->warnbuf, c->warnlen);
        c->warnlen = 0;
    }
}

// MARK: - Errors

/// Raises `fmt` (prefixed with the position) as a sandbox violation: the string is remembered in
/// the registry so the host can tell the kind apart when it reaches the top.
static int sandbox_error(lua_State *L, const char *fmt, const char *a) {
    luaL_where(L, 1);
    lua_pushfstring(L, fmt, a);
    lua_concat(L, 2);
    rh_mark_sandbox_error(L);
    return lua_error(L);
}

void rh_mark_sandbox_error(lua_State *L) {
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, RH_SANDBOX_ERROR_KEY);
}

int rh_is_sandbox_error(lua_State *L, int idx) {
    idx = lua_absindex(L, idx);
    if (lua_type(L, idx) != LUA_TSTRING) return 0;
    lua_getfield(L, LUA_REGISTRYINDEX, RH_SANDBOX_ERROR_KEY);
    int same = lua_rawequal(L, idx, -1);
    lua_pop(L, 1);
    return same;
}

/// lua.c's msghandler, but keeps the original error value: returns a record
/// { value, message, traceback } that only the host sees.
static int rh_msghandler(lua_State *L) {
    rh_control *c = control_of(L);
    int t = lua_type(L, 1);
    if (t == LUA_TSTRING || t == LUA_TNUMBER) {
        lua_pushvalue(L, 1);
        lua_tostring(L, -1);
    } else if (!c->tripped && luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING) {
        /* message on top */
    } else {
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
    }
    int msg = lua_gettop(L);
    luaL_traceback(L, L, NULL, 1);
    lua_createtable(L, 3, 0);
    lua_pushvalue(L, 1);
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, msg);
    lua_rawseti(L, -2, 2);
    lua_pushvalue(L, -2);
    lua_rawseti(L, -2, 3);
    luaL_setmetatable(L, RH_ERROR_RECORD);
    return 1;
}

int rh_pcall_traced(lua_State *L, int nargs, int nresults) {
    int base = lua_gettop(L) - nargs; /* the function */
    lua_pushcfunction(L, rh_msghandler);
    lua_insert(L, base);
    int status = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    return status;
}

static int is_error_record(lua_State *L, int idx) {
    if (lua_type(L, idx) != LUA_TTABLE || !lua_getmetatable(L, idx)) return 0;
    luaL_getmetatable(L, RH_ERROR_RECORD);
    int same = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    return same;
}

void rh_unpack_error(lua_State *L) {
    int rec = lua_gettop(L);
    if (is_error_record(L, rec)) {
        lua_rawgeti(L, rec, 1);
        lua_rawgeti(L, rec, 2);
        lua_rawgeti(L, rec, 3);
    } else {
        lua_pushvalue(L, rec);
        int t = lua_type(L, rec);
        if (t == LUA_TSTRING || t == LUA_TNUMBER) {
            lua_pushvalue(L, rec);
            lua_tostring(L, -1);
        } else {
            lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, rec));
        }
        lua_pushnil(L);
    }
    lua_remove(L, rec);
}

/// luaL_argerror without raising. The name comes from the calling instruction, as in lauxlib.
void rh_push_argerror(lua_State *L, int arg, const char *extramsg) {
    int top = lua_gettop(L);
    lua_Debug ar;
    if (!lua_getstack(L, 0, &ar)) {
        lua_pushfstring(L, "bad argument #%d (%s)", arg, extramsg);
    } else {
        lua_getinfo(L, "n", &ar);
        luaL_where(L, 1);
        if (ar.namewhat != NULL && strcmp(ar.namewhat, "method") == 0 && --arg == 0) {
            lua_pushfstring(L, "calling '%s' on bad self (%s)", ar.name ? ar.name : "?", extramsg);
        } else {
            lua_pushfstring(L, "bad argument #%d to '%s' (%s)", arg, ar.name ? ar.name : "?", extramsg);
        }
        lua_concat(L, 2);
    }
    if (lua_gettop(L) > top + 1) {
        lua_replace(L, top + 1);
        lua_settop(L, top + 1);
    }
}

void rh_push_typeerror(lua_State *L, int arg, const char *tname) {
    int top = lua_gettop(L);
    const char *got;
    if (luaL_getmetafield(L, arg, "__name") == LUA_TSTRING)
        got = lua_tostring(L, -1);
    else if (lua_type(L, arg) == LUA_TLIGHTUSERDATA)
        got = "light userdata";
    else
        got = luaL_typename(L, arg);
    const char *msg = lua_pushfstring(L, "%s expected, got %s", tname, got);
    rh_push_argerror(L, arg, msg);
    lua_replace(L, top + 1);
    lua_settop(L, top + 1);
}

// MARK: - Host functions

/// The only C function behind every Swift function. Swift returns a count or a RAISE code; the
/// raise happens here, after Swift has returned.
static int rh_trampoline(lua_State *L) {
    rh_control *c = control_of(L);
    void **slot = (void **)lua_touserdata(L, lua_upvalueindex(1));
    if (c->dispatch == NULL || c->host == NULL || slot == NULL || *slot == NULL)
        return luaL_error(L, "host function is no longer available");
    int n = c->dispatch(L, c->host, *slot);
    if (n >= 0) return n;
    if (n == RH_RAISE_WITH_WHERE && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/// __gc of host objects and function boxes: releases the retained Swift object once.
static int rh_release_gc(lua_State *L) {
    void **slot = (void **)lua_touserdata(L, 1);
    if (slot != NULL && *slot != NULL) {
        rh_control *c = control_of(L);
        void *object = *slot;
        *slot = NULL;
        if (c->release != NULL) c->release(object);
    }
    return 0;
}

void rh_push_swift_function(lua_State *L, void *box) {
    void **slot = (void **)lua_newuserdatauv(L, sizeof(void *), 0);
    *slot = box;
    luaL_setmetatable(L, RH_FUNCTION_BOX);
    lua_pushcclosure(L, rh_trampoline, 1);
}

int rh_new_object_metatable(lua_State *L, const char *tname) {
    if (!luaL_newmetatable(L, tname)) {
        lua_pop(L, 1);
        return 0;
    }
    lua_pushcfunction(L, rh_release_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushstring(L, tname);
    lua_setfield(L, -2, "__metatable");
    return 1;
}

int rh_push_object(lua_State *L, void *object, const char *tname) {
    if (luaL_getmetatable(L, tname) != LUA_TTABLE) {
        lua_pop(L, 1);
        return 0;
    }
    void **slot = (void **)lua_newuserdatauv(L, sizeof(void *), 0);
    *slot = object;
    lua_insert(L, -2);
    lua_setmetatable(L, -2);
    return 1;
}

void *rh_test_object(lua_State *L, int idx, const char *tname) {
    void **slot = (void **)luaL_testudata(L, idx, tname);
    return slot != NULL ? *slot : NULL;
}

static int rh_index_with_methods(lua_State *L) {
    lua_settop(L, 2);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    lua_pop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(2));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

void rh_push_index_with_methods(lua_State *L) { lua_pushcclosure(L, rh_index_with_methods, 2); }

// MARK: - Guarded globals

/// setmetatable refusing a raw __gc or __close field. Both can run script code with hooks off:
/// finalizers always do, and __close of a coroutine stopped by the hook runs when the coroutine
/// is reset (coroutine.wrap, coroutine.close) with the hook still disabled by the stop.
static int rh_setmetatable(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        static const char *const refused[] = {"__gc", "__close"};
        for (int i = 0; i < 2; i++) {
            lua_pushstring(L, refused[i]);
            if (lua_rawget(L, 2) != LUA_TNIL)
                return sandbox_error(L, "setmetatable: a metatable with a %s field is not allowed in the sandbox", refused[i]);
            lua_pop(L, 1);
        }
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

/// Message handler given to xpcall in place of the script's: once the hook has stopped the
/// call, the script's handler must not run (Lua calls message handlers of errors raised inside
/// a hook with hooks disabled, so an endless handler could never be stopped).
static int rh_xpcall_handler(lua_State *L) {
    if (control_of(L)->tripped) {
        lua_settop(L, 1);
        return 1;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int finish_xpcall(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

/// luaB_xpcall with the handler wrapped (yieldable like the original).
static int rh_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, rh_xpcall_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_xpcall);
    return finish_xpcall(L, status, 2);
}

/// The environment of the Lua function calling load (its _ENV upvalue), else the globals.
static void push_caller_env(lua_State *L) {
    lua_Debug ar;
    if (lua_getstack(L, 1, &ar) && lua_getinfo(L, "f", &ar)) {
        for (int i = 1;; i++) {
            const char *name = lua_getupvalue(L, -1, i);
            if (name == NULL) break;
            if (strcmp(name, "_ENV") == 0) {
                lua_remove(L, -2);
                return;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS);
}

/// load(chunk [, chunkname [, mode [, env]]]): mode is always "t" (bytecode can break the VM),
/// env defaults to the caller's environment, string chunks are limited to 1 MiB.
static int rh_load(lua_State *L) {
    int n = lua_gettop(L);
    if (lua_type(L, 1) == LUA_TSTRING && lua_rawlen(L, 1) > RH_MAX_CHUNK) {
        luaL_pushfail(L);
        lua_pushliteral(L, "chunk too large for the sandbox (more than 1 MiB)");
        return 2;
    }
    lua_settop(L, 4);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    if (n < 4) {
        push_caller_env(L);
        lua_replace(L, 4);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 4, LUA_MULTRET);
    return lua_gettop(L);
}

/// collectgarbage("count") only: the other options either cost uninterruptible time or let a
/// script defeat the host's memory accounting.
static int rh_collectgarbage(lua_State *L) {
    const char *opt = luaL_optstring(L, 1, "collect");
    if (strcmp(opt, "count") == 0) {
        int kb = lua_gc(L, LUA_GCCOUNT);
        int b = lua_gc(L, LUA_GCCOUNTB);
        lua_pushnumber(L, (lua_Number)kb + ((lua_Number)b / 1024));
        return 1;
    }
    return sandbox_error(L, "collectgarbage('%s') is not allowed in the sandbox (only 'count' is)", opt);
}

static int has_quantifier(const char *p, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (p[i] == '-' || p[i] == '*' || p[i] == '+' || p[i] == '?') return 1;
    return 0;
}

/// Pattern matching is uninterruptible and can backtrack for minutes on a long subject.
static int guarded_pattern(lua_State *L, const char *fname, int plainarg) {
    size_t sl, pl;
    luaL_checklstring(L, 1, &sl);
    const char *p = luaL_checklstring(L, 2, &pl);
    if ((double)sl * (double)pl > RH_MAX_PRODUCT)
        return sandbox_error(L, "string.%s: subject and pattern too long to match in the sandbox "
                                "(subject bytes x pattern bytes must stay under 2^30)", fname);
    if (!(plainarg && lua_toboolean(L, plainarg))) {
        if (pl > RH_MAX_PATTERN)
            return sandbox_error(L, "string.%s: patterns longer than 256 bytes are not allowed in the sandbox", fname);
        if (sl > RH_MAX_SUBJECT && has_quantifier(p, pl))
            return sandbox_error(L,
                "string.%s: a pattern with '-', '*', '+' or '?' on a subject longer than 4096 bytes is not "
                "allowed in the sandbox (split the input, or use string.find with plain = true)", fname);
    }
    return call_original(L);
}

static int rh_find(lua_State *L) { return guarded_pattern(L, "find", 4); }
static int rh_match(lua_State *L) { return guarded_pattern(L, "match", 0); }
static int rh_gmatch(lua_State *L) { return guarded_pattern(L, "gmatch", 0); }
static int rh_gsub(lua_State *L) { return guarded_pattern(L, "gsub", 0); }

/// Calls the original function (upvalue 1) with all arguments, returning all its results.
static int call_original(lua_State *L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, n, LUA_MULTRET);
    return lua_gettop(L);
}

/// string.rep of an empty string and separator loops n times in C for nothing: answer at once.
/// Other repetitions allocate their result first, so the memory cap bounds them.
static int rh_rep(lua_State *L) {
    size_t l, lsep;
    luaL_checklstring(L, 1, &l);
    luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &lsep);
    if (l + lsep == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    return call_original(L);
}

/// The length table functions will use: the __len result when there is one (Lua code, so it
/// obeys the hook), else the raw length, which real elements (memory) bound.
static lua_Integer table_length(lua_State *L, int idx) {
    if (luaL_getmetafield(L, idx, "__len") != LUA_TNIL) {
        lua_pop(L, 1);
        return luaL_len(L, idx);
    }
    return (lua_Integer)lua_rawlen(L, idx);
}

/// table.insert/remove/sort/concat/move walk elements in C without running the hook and without
/// allocating when the elements are absent (a __len that lies, or a huge move range): refuse
/// walks longer than 2^24 elements.
static int refuse_walk(lua_State *L, const char *fname, lua_Unsigned count) {
    if (count <= RH_MAX_TABLE_LOOP) return 0;
    return sandbox_error(L, "table.%s: more than 2^24 elements is not allowed in the sandbox", fname);
}

static int rh_tinsert(lua_State *L) {
    if (lua_gettop(L) >= 3 && lua_type(L, 1) != LUA_TNONE) refuse_walk(L, "insert", (lua_Unsigned)table_length(L, 1));
    return call_original(L);
}

static int rh_tremove(lua_State *L) {
    if (lua_type(L, 1) != LUA_TNONE) refuse_walk(L, "remove", (lua_Unsigned)table_length(L, 1));
    return call_original(L);
}

static int rh_tsort(lua_State *L) {
    if (lua_type(L, 1) != LUA_TNONE) refuse_walk(L, "sort", (lua_Unsigned)table_length(L, 1));
    return call_original(L);
}

static int rh_tconcat(lua_State *L) {
    lua_Integer i = luaL_optinteger(L, 3, 1);
    lua_Integer j = lua_isnoneornil(L, 4) ? table_length(L, 1) : luaL_checkinteger(L, 4);
    if (i <= j) refuse_walk(L, "concat", (lua_Unsigned)j - (lua_Unsigned)i);
    return call_original(L);
}

static int rh_tmove(lua_State *L) {
    lua_Integer f = luaL_checkinteger(L, 2);
    lua_Integer e = luaL_checkinteger(L, 3);
    if (e >= f) refuse_walk(L, "move", (lua_Unsigned)e - (lua_Unsigned)f);
    return call_original(L);
}

static size_t utf8_prefix(const char *s, size_t n) {
    while (n > 0 && (((unsigned char)s[n] & 0xC0) == 0x80)) n--; /* do not cut a sequence */
    return n;
}

/// print writing to the host's sink, one call per print, truncated at the output limit.
static int rh_print(lua_State *L) {
    rh_control *c = control_of(L);
    int n = lua_gettop(L);
    size_t cap = c->output_cap, total = 0, dropped = 0;
    luaL_checkstack(L, 2 * n + 2, "too many arguments to print");
    for (int i = 1; i <= n; i++) {
        if (i > 1) {
            if (total < cap) {
                lua_pushliteral(L, "\t");
                total++;
            } else {
                dropped++;
            }
        }
        size_t l;
        const char *s = luaL_tolstring(L, i, &l);
        if (total >= cap) {
            dropped += l;
            lua_pop(L, 1);
        } else if (total + l > cap) {
            size_t keep = utf8_prefix(s, cap - total);
            dropped += l - keep;
            lua_pushlstring(L, s, keep);
            lua_remove(L, -2);
            total += keep;
        } else {
            total += l;
        }
    }
    lua_concat(L, lua_gettop(L) - n);
    if (dropped > 0) {
        lua_pushfstring(L, "\xE2\x80\xA6(%I bytes more)", (lua_Integer)dropped);
        lua_concat(L, 2);
    }
    if (c->output != NULL && c->host != NULL) {
        size_t l;
        const char *s = lua_tolstring(L, -1, &l);
        c->output(c->host, s, l);
    }
    return 0;
}

/// Replaces field `name` of the table on top with `f`, the old value as its upvalue.
static void wrap_field(lua_State *L, const char *name, lua_CFunction f) {
    lua_getfield(L, -1, name);
    lua_pushcclosure(L, f, 1);
    lua_setfield(L, -2, name);
}

static void set_field(lua_State *L, const char *name, lua_CFunction f) {
    if (f != NULL)
        lua_pushcfunction(L, f);
    else
        lua_pushnil(L);
    lua_setfield(L, -2, name);
}

static int rh_open_sandbox(lua_State *L) {
    luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
    lua_pop(L, 1);
    luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
    lua_pop(L, 1);
    luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
    lua_pop(L, 1);
    luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
    lua_pop(L, 1);
    luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
    lua_pop(L, 1);
    luaL_requiref(L, LUA_COLIBNAME, luaopen_coroutine, 1);
    lua_pop(L, 1);

    /* os: time, clock and date only; the full table is dropped from package.loaded too */
    luaL_requiref(L, LUA_OSLIBNAME, luaopen_os, 0);
    lua_createtable(L, 0, 3);
    const char *keep[] = {"time", "clock", "date"};
    for (int i = 0; i < 3; i++) {
        lua_getfield(L, -2, keep[i]);
        lua_setfield(L, -2, keep[i]);
    }
    lua_pushvalue(L, -1);
    lua_setglobal(L, LUA_OSLIBNAME);
    luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_insert(L, -2);
    lua_setfield(L, -2, LUA_OSLIBNAME);
    lua_pop(L, 2);

    lua_pushglobaltable(L);
    set_field(L, "dofile", NULL);
    set_field(L, "loadfile", NULL);
    set_field(L, "require", NULL);
    set_field(L, "collectgarbage", rh_collectgarbage);
    set_field(L, "print", rh_print);
    wrap_field(L, "load", rh_load);
    wrap_field(L, "setmetatable", rh_setmetatable);
    set_field(L, "xpcall", rh_xpcall);
    lua_pop(L, 1);

    lua_getglobal(L, LUA_STRLIBNAME);
    set_field(L, "dump", NULL);
    wrap_field(L, "find", rh_find);
    wrap_field(L, "match", rh_match);
    wrap_field(L, "gmatch", rh_gmatch);
    wrap_field(L, "gsub", rh_gsub);
    wrap_field(L, "rep", rh_rep);
    lua_pop(L, 1);

    lua_getglobal(L, LUA_TABLIBNAME);
    wrap_field(L, "insert", rh_tinsert);
    wrap_field(L, "remove", rh_tremove);
    wrap_field(L, "sort", rh_tsort);
    wrap_field(L, "concat", rh_tconcat);
    wrap_field(L, "move", rh_tmove);
    lua_pop(L, 1);

    luaL_newmetatable(L, RH_ERROR_RECORD);
    lua_pop(L, 1);
    luaL_newmetatable(L, RH_FUNCTION_BOX);
    lua_pushcfunction(L, rh_release_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushliteral(L, "locked");
    lua_setfield(L, -2, "__metatable");
    lua_pop(L, 1);
    return 0;
}

lua_State *rh_newstate(rh_control *c) {
    lua_State *L = lua_newstate(rh_alloc, c);
    if (L == NULL) return NULL;
    c->main = L;
    lua_atpanic(L, rh_panic);
    lua_setwarnf(L, rh_warnf, c);
    lua_sethook(L, rh_hook, LUA_MASKCOUNT, RH_HOOK_COUNT);
    lua_pushcfunction(L, rh_open_sandbox);
    if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
        c->main = NULL;
        lua_close(L);
        return NULL;
    }
    return L;
}

// MARK: - Misc

void rh_gc_collect(lua_State *L) { lua_gc(L, LUA_GCCOLLECT); }

size_t rh_gc_count_bytes(lua_State *L) {
    return (size_t)lua_gc(L, LUA_GCCOUNT) * 1024 + (size_t)lua_gc(L, LUA_GCCOUNTB);
}
