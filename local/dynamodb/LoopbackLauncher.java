// Starts DynamoDB Local the way its own main() does, with two changes the local runtime needs:
// 1. it listens on 127.0.0.1 only (DynamoDB Local has no option for it and binds every interface);
// 2. it exits when its standard input closes, i.e. when the runtime that started it is gone, even by
//    SIGKILL, so no orphan JVM keeps the database files open for the next start;
// 3. with -Dmailvet.sqliteSync=off it turns SQLite's fsync off (PRAGMA synchronous=OFF): every write is
//    still in the file before the answer, so a crash of the JVM loses nothing, but a crash of the
//    machine may (LOCAL_FSYNC=false). DynamoDB Local has no option for it either.
// Compiled once by local/dynamodb.ts (javac, cached under node_modules/.cache) and run with the jar on the classpath;
// DynamoDB Local and Jetty are reached by reflection, so it compiles with only sqlite4java on the classpath.
import com.almworks.sqlite4java.SQLiteConnection;
import com.almworks.sqlite4java.SQLiteJob;
import com.almworks.sqlite4java.SQLiteQueue;
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
    if ("off".equals(System.getProperty("mailvet.sqliteSync"))) syncOff(proxy);
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
   * client -> its SQLiteDBAccess -> the SQLiteQueue that owns the connection) gets synchronous=OFF. A
   * DynamoDB Local whose insides differ keeps its default (fsync on) and says so.
   */
  private static void syncOff(Object proxy) {
    try {
      Object requests = read(read(proxy, "serverHandler"), "primaryHandler");
      Method shared = requests.getClass().getDeclaredMethod("getHandler", String.class);
      shared.setAccessible(true);
      // with -sharedDb the key is ignored: every caller gets the one shared instance
      SQLiteQueue queue = (SQLiteQueue) read(read(shared.invoke(requests, "local"), "dbAccess"), "queue");
      queue.execute(new SQLiteJob<Object>() {
        @Override
        protected Object job(SQLiteConnection connection) throws Throwable {
          connection.exec("PRAGMA synchronous=OFF");
          return null;
        }
      }).complete();
    } catch (Throwable error) {
      System.err.println("mailvet: SQLite fsync stays on (" + error + ")");
    }
  }
}
