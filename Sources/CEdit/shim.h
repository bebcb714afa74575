#include <stdio.h>
#include <histedit.h>
#include <editline/readline.h>

// libedit's readline-compatible globals, reached through functions: Swift 6 refuses direct use of
// imported mutable C globals.

/// Installs the completion function and the characters that end a word for completion.
static inline void rh_edit_set_completion(rl_completion_func_t *function, const char *wordBreaks) {
    rl_attempted_completion_function = function;
    rl_basic_word_break_characters = wordBreaks;
    rl_completer_word_break_characters = (char *)wordBreaks;
    rl_completion_append_character = 0;
}

/// Inside a completion function: do not fall back to file name completion.
static inline void rh_edit_completion_over(void) { rl_attempted_completion_over = 1; }

/// The line being edited (valid inside a completion function).
static inline const char *rh_edit_line_buffer(void) { return rl_line_buffer; }

/// Names this program for `$if` in ~/.editrc.
static inline void rh_edit_set_name(const char *name) { rl_readline_name = name; }

/// Reads keys through `function` (it returns a Unicode scalar value, or -1 to end the line).
/// Must be set before libedit initializes (the first readline or read_history).
static inline void rh_edit_set_getc(int (*function)(FILE *)) { rl_getc_function = function; }
