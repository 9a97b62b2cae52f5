/*
 * Hand-written for lakeshift (not a copy of Hive's source): Hive 2.3.9's standalone metastore,
 * listening on one address instead of every interface.
 *
 * HiveMetaStore.main binds its Thrift port through HiveAuthUtils.getServerSocket(null, port),
 * the wildcard address, and Hive 2.3 has no setting to change that. This class takes the steps
 * main and startMetaStore take for a non-SASL, non-SSL server, in the same order and with
 * Hive's own classes (HMSHandler behind newRetryingHMSHandler, TUGIBasedProcessor or
 * TSetIpAddressProcessor, TServerSocketKeepAlive, TThreadPoolServer with HiveConf's worker
 * threads, Hive's server event handler, shutdown hook, compactor and housekeeping threads),
 * and passes a host to getServerSocket: that argument is the one difference.
 *
 * The pieces HiveMetaStore keeps private (its event handler, shutdown hook, thread starters,
 * two static flags, the chained transport factory) are reached by reflection, not rewritten, so
 * the metastore runs Hive's code; the check on Hive's version guards those names.
 *
 * Usage: java -cp CONF:$SPARK_HOME/jars/*:THIS_DIR lakeshift.platform.HiveMetaStoreOnHost
 *            HOST [HiveMetaStore's own arguments, e.g. -p PORT]
 */
package lakeshift.platform;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.hadoop.hive.common.LogUtils;
import org.apache.hadoop.hive.common.auth.HiveAuthUtils;
import org.apache.hadoop.hive.common.metrics.common.MetricsFactory;
import org.apache.hadoop.hive.conf.HiveConf;
import org.apache.hadoop.hive.conf.HiveConf.ConfVars;
import org.apache.hadoop.hive.metastore.HiveMetaStore;
import org.apache.hadoop.hive.metastore.HiveMetaStore.HMSHandler;
import org.apache.hadoop.hive.metastore.HiveMetaStore.HiveMetastoreCli;
import org.apache.hadoop.hive.metastore.IHMSHandler;
import org.apache.hadoop.hive.metastore.TServerSocketKeepAlive;
import org.apache.hadoop.hive.metastore.TSetIpAddressProcessor;
import org.apache.hadoop.hive.metastore.TUGIBasedProcessor;
import org.apache.hadoop.hive.thrift.TUGIContainingTransport;
import org.apache.hadoop.util.StringUtils;
import org.apache.hive.common.util.HiveStringUtils;
import org.apache.hive.common.util.HiveVersionInfo;
import org.apache.hive.common.util.ShutdownHookManager;
import org.apache.thrift.TProcessor;
import org.apache.thrift.protocol.TBinaryProtocol;
import org.apache.thrift.protocol.TCompactProtocol;
import org.apache.thrift.protocol.TProtocolFactory;
import org.apache.thrift.server.TServer;
import org.apache.thrift.server.TServerEventHandler;
import org.apache.thrift.server.TThreadPoolServer;
import org.apache.thrift.transport.TFramedTransport;
import org.apache.thrift.transport.TServerSocket;
import org.apache.thrift.transport.TTransportFactory;

public final class HiveMetaStoreOnHost {
  /** The Hive release whose private member names below were read from its bytecode. */
  private static final String HIVE_VERSION = "2.3.9";

  private HiveMetaStoreOnHost() {}

  public static void main(String[] args) throws Throwable {
    if (args.length < 1) {
      System.err.println("usage: HiveMetaStoreOnHost HOST [HiveMetaStore arguments]");
      System.exit(2);
    }
    String host = args[0];
    String[] hiveArgs = Arrays.copyOfRange(args, 1, args.length);
    if (!HIVE_VERSION.equals(HiveVersionInfo.getVersion())) {
      throw new IllegalStateException("HiveMetaStoreOnHost was written for Hive " + HIVE_VERSION
          + "'s metastore, found Hive " + HiveVersionInfo.getVersion());
    }
    // HiveMetaStore.main, step for step.
    HiveConf.setLoadMetastoreConfig(true);
    HiveConf conf = new HiveConf(HMSHandler.class);
    HiveMetastoreCli cli = new HiveMetastoreCli(conf);
    cli.parse(hiveArgs);
    boolean isCliVerbose = cli.isVerbose();
    Properties hiveconf = cli.addHiveconfToSystemProperties();
    if (System.getProperty("log4j.configurationFile") == null) {
      try {
        LogUtils.initHiveLog4j();
      } catch (LogUtils.LogInitializationException e) {
        HMSHandler.LOG.warn(e.getMessage());
      }
    }
    HiveStringUtils.startupShutdownMessage(HiveMetaStore.class, hiveArgs, HiveMetaStore.LOG);
    try {
      String msg = "Starting hive metastore on " + host + " port " + cli.getPort();
      HMSHandler.LOG.info(msg);
      if (isCliVerbose) {
        System.err.println(msg);
      }
      for (Map.Entry<Object, Object> item : hiveconf.entrySet()) {
        conf.set((String) item.getKey(), (String) item.getValue());
      }
      ShutdownHookManager.addShutdownHook(
          (Runnable) hiveConstructor("HiveMetaStore$2", boolean.class, HiveConf.class)
              .newInstance(isCliVerbose, conf));
      if (conf.getBoolVar(ConfVars.METASTORE_METRICS)) {
        try {
          MetricsFactory.init(conf);
        } catch (Exception e) {
          HiveMetaStore.LOG.error(
              "error in Metrics init: " + e.getClass().getName() + " " + e.getMessage(), e);
        }
      }
      Lock startLock = new ReentrantLock();
      Condition startCondition = startLock.newCondition();
      AtomicBoolean startedServing = new AtomicBoolean();
      hiveMethod("startMetaStoreThreads", HiveConf.class, Lock.class, Condition.class,
          AtomicBoolean.class).invoke(null, conf, startLock, startCondition, startedServing);
      startMetaStore(host, cli.getPort(), conf, startLock, startCondition, startedServing);
    } catch (Throwable t) {
      HMSHandler.LOG.error("Metastore Thrift Server threw an exception...", t);
      throw t;
    }
  }

  /** HiveMetaStore.startMetaStore without SASL or SSL, its socket bound to {@code host}. */
  private static void startMetaStore(String host, int port, HiveConf conf, Lock startLock,
      Condition startCondition, AtomicBoolean startedServing) throws Throwable {
    try {
      hiveStatic("isMetaStoreRemote").setBoolean(null, true);
      long maxMessageSize = conf.getLongVar(ConfVars.METASTORESERVERMAXMESSAGESIZE);
      int minWorkerThreads = conf.getIntVar(ConfVars.METASTORESERVERMINTHREADS);
      int maxWorkerThreads = conf.getIntVar(ConfVars.METASTORESERVERMAXTHREADS);
      boolean tcpKeepAlive = conf.getBoolVar(ConfVars.METASTORE_TCP_KEEP_ALIVE);
      boolean useFramedTransport = conf.getBoolVar(ConfVars.METASTORE_USE_THRIFT_FRAMED_TRANSPORT);
      boolean useCompactProtocol = conf.getBoolVar(ConfVars.METASTORE_USE_THRIFT_COMPACT_PROTOCOL);
      boolean useSSL = conf.getBoolVar(ConfVars.HIVE_METASTORE_USE_SSL);
      boolean useSasl = conf.getBoolVar(ConfVars.METASTORE_USE_THRIFT_SASL);
      if (useSasl || useSSL) {
        // lakeshift's hive-site.xml sets neither; Kerberos or TLS would need Hive's other branches.
        throw new IllegalStateException("HiveMetaStoreOnHost serves without SASL and SSL only, but "
            + ConfVars.METASTORE_USE_THRIFT_SASL.varname + "=" + useSasl + ", "
            + ConfVars.HIVE_METASTORE_USE_SSL.varname + "=" + useSSL);
      }
      hiveStatic("useSasl").setBoolean(null, false);

      TProtocolFactory protocolFactory;
      TProtocolFactory inputProtoFactory;
      if (useCompactProtocol) {
        protocolFactory = new TCompactProtocol.Factory();
        inputProtoFactory = new TCompactProtocol.Factory(maxMessageSize, maxMessageSize);
      } else {
        protocolFactory = new TBinaryProtocol.Factory();
        inputProtoFactory = new TBinaryProtocol.Factory(true, true, maxMessageSize, maxMessageSize);
      }
      HMSHandler baseHandler = new HMSHandler("new db based metaserver", conf, false);
      IHMSHandler handler = HiveMetaStore.newRetryingHMSHandler(baseHandler, conf);

      TTransportFactory transFactory;
      TProcessor processor;
      if (conf.getBoolVar(ConfVars.METASTORE_EXECUTE_SET_UGI)) {
        transFactory = useFramedTransport
            ? chainedTransportFactory(
                new TFramedTransport.Factory(), new TUGIContainingTransport.Factory())
            : new TUGIContainingTransport.Factory();
        processor = new TUGIBasedProcessor<IHMSHandler>(handler);
        HiveMetaStore.LOG.info("Starting DB backed MetaStore Server with SetUGI enabled");
      } else {
        transFactory = useFramedTransport ? new TFramedTransport.Factory() : new TTransportFactory();
        processor = new TSetIpAddressProcessor<IHMSHandler>(handler);
        HiveMetaStore.LOG.info("Starting DB backed MetaStore Server");
      }
      // The one change: Hive passes null here, which binds the wildcard address.
      TServerSocket serverSocket = HiveAuthUtils.getServerSocket(host, port);
      if (tcpKeepAlive) {
        serverSocket = new TServerSocketKeepAlive(serverSocket);
      }
      TThreadPoolServer.Args args = new TThreadPoolServer.Args(serverSocket)
          .processor(processor)
          .transportFactory(transFactory)
          .protocolFactory(protocolFactory)
          .inputProtocolFactory(inputProtoFactory)
          .minWorkerThreads(minWorkerThreads)
          .maxWorkerThreads(maxWorkerThreads);
      TServer tServer = new TThreadPoolServer(args);
      tServer.setServerEventHandler(
          (TServerEventHandler) hiveConstructor("HiveMetaStore$3").newInstance());
      HMSHandler.LOG.info("Started the new metaserver on " + host + " port [" + port + "]...");
      HMSHandler.LOG.info("Options.minWorkerThreads = " + minWorkerThreads);
      HMSHandler.LOG.info("Options.maxWorkerThreads = " + maxWorkerThreads);
      HMSHandler.LOG.info("TCP keepalive = " + tcpKeepAlive);
      if (startLock != null) {
        hiveMethod("signalOtherThreadsToStart", TServer.class, Lock.class, Condition.class,
            AtomicBoolean.class).invoke(null, tServer, startLock, startCondition, startedServing);
      }
      tServer.serve();
    } catch (Throwable x) {
      x.printStackTrace();
      HMSHandler.LOG.error(StringUtils.stringifyException(x));
      throw x;
    }
  }

  private static TTransportFactory chainedTransportFactory(
      TTransportFactory parent, TTransportFactory child) throws ReflectiveOperationException {
    return (TTransportFactory)
        hiveConstructor("HiveMetaStore$ChainedTTransportFactory", TTransportFactory.class,
            TTransportFactory.class).newInstance(parent, child);
  }

  private static Constructor<?> hiveConstructor(String simpleName, Class<?>... parameters)
      throws ReflectiveOperationException {
    Class<?> nested = Class.forName("org.apache.hadoop.hive.metastore." + simpleName);
    Constructor<?> constructor = nested.getDeclaredConstructor(parameters);
    constructor.setAccessible(true);
    return constructor;
  }

  private static Method hiveMethod(String name, Class<?>... parameters)
      throws ReflectiveOperationException {
    Method method = HiveMetaStore.class.getDeclaredMethod(name, parameters);
    method.setAccessible(true);
    return method;
  }

  private static Field hiveStatic(String name) throws ReflectiveOperationException {
    Field field = HiveMetaStore.class.getDeclaredField(name);
    field.setAccessible(true);
    return field;
  }
}
