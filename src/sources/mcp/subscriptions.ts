/** Which sessions subscribed to which resource URIs at a shared backend. */
export class Subscriptions {
  private readonly byUri = new Map<string, Set<string>>();

  /** Adds a session's subscription; true when it is the URI's first. */
  add(uri: string, session: string): boolean {
    const sessions = this.byUri.get(uri) ?? new Set<string>();
    const first = sessions.size === 0;
    sessions.add(session);
    this.byUri.set(uri, sessions);
    return first;
  }

  /** Removes a session's subscription; true when it was the URI's last. */
  remove(uri: string, session: string): boolean {
    const sessions = this.byUri.get(uri);
    if (!sessions?.delete(session)) return false;
    if (sessions.size > 0) return false;
    this.byUri.delete(uri);
    return true;
  }

  /** Removes every subscription of a session; returns the URIs nobody watches any more. */
  removeSession(session: string): string[] {
    const orphaned: string[] = [];
    for (const uri of [...this.byUri.keys()]) if (this.remove(uri, session)) orphaned.push(uri);
    return orphaned;
  }

  uris(): string[] {
    return [...this.byUri.keys()];
  }
}
