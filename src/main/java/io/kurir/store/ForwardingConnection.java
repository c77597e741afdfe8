package io.kurir.store;

import java.sql.Array;
import java.sql.Blob;
import java.sql.CallableStatement;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.SQLClientInfoException;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Savepoint;
import java.sql.ShardingKey;
import java.sql.Statement;
import java.sql.Struct;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

/**
 * A connection that hands every call to {@link #target()}: the base of a connection that changes a
 * few calls, written out rather than made a {@link java.lang.reflect.Proxy} (see {@link
 * ForwardingPreparedStatement}).
 */
abstract class ForwardingConnection implements Connection {
  /** The connection the calls go to. */
  abstract Connection target();

  @Override
  public void abort(Executor first) throws SQLException {
    target().abort(first);
  }

  @Override
  public void beginRequest() throws SQLException {
    target().beginRequest();
  }

  @Override
  public void clearWarnings() throws SQLException {
    target().clearWarnings();
  }

  @Override
  public void close() throws SQLException {
    target().close();
  }

  @Override
  public void commit() throws SQLException {
    target().commit();
  }

  @Override
  public Array createArrayOf(String name, Object[] second) throws SQLException {
    return target().createArrayOf(name, second);
  }

  @Override
  public Blob createBlob() throws SQLException {
    return target().createBlob();
  }

  @Override
  public Clob createClob() throws SQLException {
    return target().createClob();
  }

  @Override
  public NClob createNClob() throws SQLException {
    return target().createNClob();
  }

  @Override
  public SQLXML createSQLXML() throws SQLException {
    return target().createSQLXML();
  }

  @Override
  public Statement createStatement() throws SQLException {
    return target().createStatement();
  }

  @Override
  public Statement createStatement(int first, int second, int third) throws SQLException {
    return target().createStatement(first, second, third);
  }

  @Override
  public Statement createStatement(int first, int second) throws SQLException {
    return target().createStatement(first, second);
  }

  @Override
  public Struct createStruct(String name, Object[] second) throws SQLException {
    return target().createStruct(name, second);
  }

  @Override
  public void endRequest() throws SQLException {
    target().endRequest();
  }

  @Override
  public boolean getAutoCommit() throws SQLException {
    return target().getAutoCommit();
  }

  @Override
  public String getCatalog() throws SQLException {
    return target().getCatalog();
  }

  @Override
  public Properties getClientInfo() throws SQLException {
    return target().getClientInfo();
  }

  @Override
  public String getClientInfo(String name) throws SQLException {
    return target().getClientInfo(name);
  }

  @Override
  public int getHoldability() throws SQLException {
    return target().getHoldability();
  }

  @Override
  public DatabaseMetaData getMetaData() throws SQLException {
    return target().getMetaData();
  }

  @Override
  public int getNetworkTimeout() throws SQLException {
    return target().getNetworkTimeout();
  }

  @Override
  public String getSchema() throws SQLException {
    return target().getSchema();
  }

  @Override
  public int getTransactionIsolation() throws SQLException {
    return target().getTransactionIsolation();
  }

  @Override
  public Map<String, Class<?>> getTypeMap() throws SQLException {
    return target().getTypeMap();
  }

  @Override
  public SQLWarning getWarnings() throws SQLException {
    return target().getWarnings();
  }

  @Override
  public boolean isClosed() throws SQLException {
    return target().isClosed();
  }

  @Override
  public boolean isReadOnly() throws SQLException {
    return target().isReadOnly();
  }

  @Override
  public boolean isValid(int first) throws SQLException {
    return target().isValid(first);
  }

  @Override
  public boolean isWrapperFor(Class<?> first) throws SQLException {
    return target().isWrapperFor(first);
  }

  @Override
  public String nativeSQL(String sql) throws SQLException {
    return target().nativeSQL(sql);
  }

  @Override
  public CallableStatement prepareCall(String sql, int second, int third, int fourth)
      throws SQLException {
    return target().prepareCall(sql, second, third, fourth);
  }

  @Override
  public CallableStatement prepareCall(String sql, int second, int third) throws SQLException {
    return target().prepareCall(sql, second, third);
  }

  @Override
  public CallableStatement prepareCall(String sql) throws SQLException {
    return target().prepareCall(sql);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int[] second) throws SQLException {
    return target().prepareStatement(sql, second);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, String[] second) throws SQLException {
    return target().prepareStatement(sql, second);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int second, int third, int fourth)
      throws SQLException {
    return target().prepareStatement(sql, second, third, fourth);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int second, int third) throws SQLException {
    return target().prepareStatement(sql, second, third);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int second) throws SQLException {
    return target().prepareStatement(sql, second);
  }

  @Override
  public PreparedStatement prepareStatement(String sql) throws SQLException {
    return target().prepareStatement(sql);
  }

  @Override
  public void releaseSavepoint(Savepoint first) throws SQLException {
    target().releaseSavepoint(first);
  }

  @Override
  public void rollback() throws SQLException {
    target().rollback();
  }

  @Override
  public void rollback(Savepoint first) throws SQLException {
    target().rollback(first);
  }

  @Override
  public void setAutoCommit(boolean first) throws SQLException {
    target().setAutoCommit(first);
  }

  @Override
  public void setCatalog(String name) throws SQLException {
    target().setCatalog(name);
  }

  @Override
  public void setClientInfo(String name, String value) throws SQLClientInfoException {
    target().setClientInfo(name, value);
  }

  @Override
  public void setClientInfo(Properties first) throws SQLClientInfoException {
    target().setClientInfo(first);
  }

  @Override
  public void setHoldability(int index) throws SQLException {
    target().setHoldability(index);
  }

  @Override
  public void setNetworkTimeout(Executor first, int value) throws SQLException {
    target().setNetworkTimeout(first, value);
  }

  @Override
  public void setReadOnly(boolean first) throws SQLException {
    target().setReadOnly(first);
  }

  @Override
  public Savepoint setSavepoint() throws SQLException {
    return target().setSavepoint();
  }

  @Override
  public Savepoint setSavepoint(String name) throws SQLException {
    return target().setSavepoint(name);
  }

  @Override
  public void setSchema(String name) throws SQLException {
    target().setSchema(name);
  }

  @Override
  public void setShardingKey(ShardingKey first, ShardingKey value) throws SQLException {
    target().setShardingKey(first, value);
  }

  @Override
  public void setShardingKey(ShardingKey first) throws SQLException {
    target().setShardingKey(first);
  }

  @Override
  public boolean setShardingKeyIfValid(ShardingKey first, int value) throws SQLException {
    return target().setShardingKeyIfValid(first, value);
  }

  @Override
  public boolean setShardingKeyIfValid(ShardingKey first, ShardingKey value, int length)
      throws SQLException {
    return target().setShardingKeyIfValid(first, value, length);
  }

  @Override
  public void setTransactionIsolation(int index) throws SQLException {
    target().setTransactionIsolation(index);
  }

  @Override
  public void setTypeMap(Map<String, Class<?>> first) throws SQLException {
    target().setTypeMap(first);
  }

  @Override
  public <T> T unwrap(Class<T> first) throws SQLException {
    return target().unwrap(first);
  }
}
