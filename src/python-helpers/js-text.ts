/**
 * Python that treats text as the TypeScript it took over from did, so that an edit moved
 * from TypeScript into a helper script writes the same bytes: JavaScript's whitespace (what
 * `trim()` and `\s` take, which is not Python's `str.isspace`), its `.` in a regular
 * expression (no line terminator), and its string order (UTF-16 code units, where Python
 * compares code points).
 */
export const JS_TEXT_PY = String.raw`
import re

JS_SPACE = "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
JS_SPACES = re.compile("[" + JS_SPACE + "]+")
JS_DOT = "[^\n\r\u2028\u2029]"


def js_trim(text):
    return text.strip(JS_SPACE)


def js_order(text):
    return text.encode("utf-16-be", "surrogatepass")
`;
