// Starts DynamoDB Local the way its own main() does, with two changes the local runtime needs:
// 1. it listens on 127.0.0.1 only (DynamoDB Local has no option for it and binds every interface);
// 2. it exits when its standard input closes, i.e. when the runtime that started it is gone, even by
//    SIGKILL, so no orphan JVM keeps the database files open for the next start;
// 3. with -Dmailvet.sqliteSync=full|normal|off (LOCAL_FSYNC) it puts SQLite in WAL mode with that
//    synchronous setting. SQLite's default, a rollback journal, creates, fsyncs and deletes a journal
//    file per write (four fsyncs a transaction); a WAL appends each commit to one file. In every mode a
//    write is in the OS before the answer, so a crash of the JVM loses nothing; FULL also fsyncs each
//    commit (power loss loses nothing), NORMAL fsyncs at checkpoints (power loss may lose the last
//    commits, never corrupts), OFF never. DynamoDB Local has no option for any of it.
// Compiled once by local/dynamodb.ts (javac, cached under node_modules/.cache) and run with the jar on the classpath;
// DynamoDB Local and Jetty are reached by reflection, so it compiles with only sqlite4java on the classpath.
import com.almworks.sqlite4java.SQLiteConnection;
import com.almworks.sqlite4java.SQLiteJob;
import com.almworks.sqlite4java.SQLiteQueue;
import com.almworks.sqlite4java.SQLiteStatement;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

public class LoopbackLauncher {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("mailvet.host", "127.0.0.1");
    Class<?> runner = Class.forName("software.amazon.dynamodb.services.local.main.ServerRunner");
    Object proxy = runner.getMethod("createServerFromCommandLineArgs", String[].class).invoke(null, (Object) args);
    Field field = proxy.getClass().getDeclaredField("server");
    field.setAccessible(true);
    Object server = field.get(proxy);
    Object[] connectors = (Object[]) server.getClass().getMethod("getConnectors").invoke(server);
    for (Object connector : connectors) {
      Method setHost = connector.getClass().getMethod("setHost", String.class);
      setHost.invoke(connector, host);
    }
    Thread watcher = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // Nothing is ever sent; the read returns -1 when the parent closes the pipe or dies.
        }
      } catch (Exception ignored) {
        // A broken pipe means the same: the parent is gone.
      }
      Runtime.getRuntime().halt(0);
    });
    watcher.setDaemon(true);
    watcher.start();
    // before the port opens, so no write is ever answered with the default
    String sync = System.getProperty("mailvet.sqliteSync");
    if (sync != null) walMode(proxy, sync);
    proxy.getClass().getMethod("start").invoke(proxy);
    System.out.println("DynamoDB Local listening on " + host);
  }

  /** A field of the object's class or of a superclass, made readable. */
  private static Object read(Object target, String name) throws Exception {
    for (Class<?> type = target.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(target);
      } catch (NoSuchFieldException next) {
        // declared higher up
      }
    }
    throw new NoSuchFieldException(name);
  }

  /**
   * The shared database's one SQLite connection (proxy -> request handler -> the shared instance's
   * client -> its SQLiteDBAccess -> the SQLiteQueue that owns the connection) gets journal_mode=WAL and
   * the given synchronous setting. journal_mode is stored in the file (a later open keeps WAL),
   * synchronous is the connection's. A DynamoDB Local whose insides differ keeps SQLite's defaults
   * (rollback journal, synchronous=FULL: slower, as durable) and says so.
   */
  private static void walMode(Object proxy, String sync) {
    try {
      if (!sync.matches("full|normal|off")) throw new IllegalArgumentException("mailvet.sqliteSync=" + sync);
      Object requests = read(read(proxy, "serverHandler"), "primaryHandler");
      Method shared = requests.getClass().getDeclaredMethod("getHandler", String.class);
      shared.setAccessible(true);
      // with -sharedDb the key is ignored: every caller gets the one shared instance
      SQLiteQueue queue = (SQLiteQueue) read(read(shared.invoke(requests, "local"), "dbAccess"), "queue");
      SQLiteJob<String> job = queue.execute(new SQLiteJob<String>() {
        @Override
        protected String job(SQLiteConnection connection) throws Throwable {
          SQLiteStatement journal = connection.prepare("PRAGMA journal_mode=WAL");
          String mode;
          try {
            journal.step();
            mode = journal.columnString(0);
          } finally {
            journal.dispose();
          }
          // -inMemory answers "memory": nothing to journal, nothing to sync
          if (!"wal".equals(mode) && !"memory".equals(mode)) throw new IllegalStateException("journal_mode " + mode);
          connection.exec("PRAGMA synchronous=" + sync.toUpperCase());
          return mode;
        }
      });
      String mode = job.complete();
      if (job.getError() != null) throw job.getError();
      System.out.println("mailvet: SQLite journal_mode=" + mode + " synchronous=" + sync);
    } catch (Throwable error) {
      System.err.println("mailvet: SQLite keeps its defaults, LOCAL_FSYNC does not reach it (" + error + ")");
    }
  }
}
