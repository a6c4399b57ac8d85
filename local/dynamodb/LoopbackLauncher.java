// Starts DynamoDB Local the way its own main() does, with two changes the local runtime needs:
// 1. it listens on 127.0.0.1 only (DynamoDB Local has no option for it and binds every interface);
// 2. it exits when its standard input closes, i.e. when the runtime that started it is gone, even by
//    SIGKILL, so no orphan JVM keeps the database files open for the next start.
// Compiled once by local/dynamodb.ts (javac, cached under node_modules/.cache) and run with the jar on the classpath;
// DynamoDB Local and Jetty are reached by reflection, so it compiles with nothing on the classpath.
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
    proxy.getClass().getMethod("start").invoke(proxy);
    System.out.println("DynamoDB Local listening on " + host);
  }
}
