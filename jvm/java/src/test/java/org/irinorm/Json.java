package org.irinorm;

/**
 * Just enough JSON (RFC 8259) to read one string member of the CLI's JSON lines: objects
 * are scanned member by member, values skipped, the member's string decoded.
 */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** The string member {@code name} of the object {@code line}; null when it is null. */
    static String stringMember(String line, String name) {
        Json j = new Json(line);
        j.expect('{');
        while (true) {
            String member = j.string();
            j.expect(':');
            if (member.equals(name)) {
                return j.peek() == 'n' ? null : j.string();
            }
            j.skipValue();
            if (j.next() == '}') {
                throw new AssertionError("no member " + name + " in " + line);
            }
        }
    }

    private char peek() {
        return text.charAt(at);
    }

    private char next() {
        return text.charAt(at++);
    }

    private void expect(char c) {
        if (next() != c) {
            throw new AssertionError("expected " + c + " at " + (at - 1) + " of " + text);
        }
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        for (char c = next(); c != '"'; c = next()) {
            if (c != '\\') {
                out.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case 'n': out.append('\n'); break;
                case 't': out.append('\t'); break;
                case 'r': out.append('\r'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'u':
                    out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                    at += 4;
                    break;
                default: out.append(e);
            }
        }
        return out.toString();
    }

    /** Skips a value of any kind (strings aware of their escapes, brackets nested). */
    private void skipValue() {
        int depth = 0;
        do {
            char c = peek();
            if (c == '"') {
                string();
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                if (depth == 0) {
                    return;
                }
                depth--;
            } else if (c == ',' && depth == 0) {
                return;
            }
            at++;
        } while (depth > 0 || (peek() != ',' && peek() != '}'));
    }
}
