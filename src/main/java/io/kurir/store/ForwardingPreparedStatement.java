package io.kurir.store;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.Connection;
import java.sql.Date;
import java.sql.NClob;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLWarning;
import java.sql.SQLXML;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;

/**
 * A prepared statement that hands every call to the one {@link #open()} gives: the base of a
 * statement that changes a few calls. Written out rather than made a {@link
 * java.lang.reflect.Proxy}: a proxy's reflective call on every parameter set was as much of
 * SQLite's writer time as the driver's own work (docs/performance.md).
 */
abstract class ForwardingPreparedStatement implements PreparedStatement {
  /** The statement the calls go to; throws when this one may no longer be used. */
  abstract PreparedStatement open() throws SQLException;

  @Override
  public void addBatch() throws SQLException {
    open().addBatch();
  }

  @Override
  public void addBatch(String sql) throws SQLException {
    open().addBatch(sql);
  }

  @Override
  public void cancel() throws SQLException {
    open().cancel();
  }

  @Override
  public void clearBatch() throws SQLException {
    open().clearBatch();
  }

  @Override
  public void clearParameters() throws SQLException {
    open().clearParameters();
  }

  @Override
  public void clearWarnings() throws SQLException {
    open().clearWarnings();
  }

  @Override
  public void close() throws SQLException {
    open().close();
  }

  @Override
  public void closeOnCompletion() throws SQLException {
    open().closeOnCompletion();
  }

  @Override
  public String enquoteIdentifier(String name, boolean second) throws SQLException {
    return open().enquoteIdentifier(name, second);
  }

  @Override
  public String enquoteLiteral(String name) throws SQLException {
    return open().enquoteLiteral(name);
  }

  @Override
  public String enquoteNCharLiteral(String name) throws SQLException {
    return open().enquoteNCharLiteral(name);
  }

  @Override
  public boolean execute() throws SQLException {
    return open().execute();
  }

  @Override
  public boolean execute(String sql, int[] second) throws SQLException {
    return open().execute(sql, second);
  }

  @Override
  public boolean execute(String sql, String[] second) throws SQLException {
    return open().execute(sql, second);
  }

  @Override
  public boolean execute(String sql, int second) throws SQLException {
    return open().execute(sql, second);
  }

  @Override
  public boolean execute(String sql) throws SQLException {
    return open().execute(sql);
  }

  @Override
  public int[] executeBatch() throws SQLException {
    return open().executeBatch();
  }

  @Override
  public long[] executeLargeBatch() throws SQLException {
    return open().executeLargeBatch();
  }

  @Override
  public long executeLargeUpdate() throws SQLException {
    return open().executeLargeUpdate();
  }

  @Override
  public long executeLargeUpdate(String sql, int[] second) throws SQLException {
    return open().executeLargeUpdate(sql, second);
  }

  @Override
  public long executeLargeUpdate(String sql, String[] second) throws SQLException {
    return open().executeLargeUpdate(sql, second);
  }

  @Override
  public long executeLargeUpdate(String sql, int second) throws SQLException {
    return open().executeLargeUpdate(sql, second);
  }

  @Override
  public long executeLargeUpdate(String sql) throws SQLException {
    return open().executeLargeUpdate(sql);
  }

  @Override
  public ResultSet executeQuery() throws SQLException {
    return open().executeQuery();
  }

  @Override
  public ResultSet executeQuery(String sql) throws SQLException {
    return open().executeQuery(sql);
  }

  @Override
  public int executeUpdate() throws SQLException {
    return open().executeUpdate();
  }

  @Override
  public int executeUpdate(String sql, int[] second) throws SQLException {
    return open().executeUpdate(sql, second);
  }

  @Override
  public int executeUpdate(String sql, String[] second) throws SQLException {
    return open().executeUpdate(sql, second);
  }

  @Override
  public int executeUpdate(String sql, int second) throws SQLException {
    return open().executeUpdate(sql, second);
  }

  @Override
  public int executeUpdate(String sql) throws SQLException {
    return open().executeUpdate(sql);
  }

  @Override
  public Connection getConnection() throws SQLException {
    return open().getConnection();
  }

  @Override
  public int getFetchDirection() throws SQLException {
    return open().getFetchDirection();
  }

  @Override
  public int getFetchSize() throws SQLException {
    return open().getFetchSize();
  }

  @Override
  public ResultSet getGeneratedKeys() throws SQLException {
    return open().getGeneratedKeys();
  }

  @Override
  public long getLargeMaxRows() throws SQLException {
    return open().getLargeMaxRows();
  }

  @Override
  public long getLargeUpdateCount() throws SQLException {
    return open().getLargeUpdateCount();
  }

  @Override
  public int getMaxFieldSize() throws SQLException {
    return open().getMaxFieldSize();
  }

  @Override
  public int getMaxRows() throws SQLException {
    return open().getMaxRows();
  }

  @Override
  public ResultSetMetaData getMetaData() throws SQLException {
    return open().getMetaData();
  }

  @Override
  public boolean getMoreResults() throws SQLException {
    return open().getMoreResults();
  }

  @Override
  public boolean getMoreResults(int first) throws SQLException {
    return open().getMoreResults(first);
  }

  @Override
  public ParameterMetaData getParameterMetaData() throws SQLException {
    return open().getParameterMetaData();
  }

  @Override
  public int getQueryTimeout() throws SQLException {
    return open().getQueryTimeout();
  }

  @Override
  public ResultSet getResultSet() throws SQLException {
    return open().getResultSet();
  }

  @Override
  public int getResultSetConcurrency() throws SQLException {
    return open().getResultSetConcurrency();
  }

  @Override
  public int getResultSetHoldability() throws SQLException {
    return open().getResultSetHoldability();
  }

  @Override
  public int getResultSetType() throws SQLException {
    return open().getResultSetType();
  }

  @Override
  public int getUpdateCount() throws SQLException {
    return open().getUpdateCount();
  }

  @Override
  public SQLWarning getWarnings() throws SQLException {
    return open().getWarnings();
  }

  @Override
  public boolean isCloseOnCompletion() throws SQLException {
    return open().isCloseOnCompletion();
  }

  @Override
  public boolean isClosed() throws SQLException {
    return open().isClosed();
  }

  @Override
  public boolean isPoolable() throws SQLException {
    return open().isPoolable();
  }

  @Override
  public boolean isSimpleIdentifier(String name) throws SQLException {
    return open().isSimpleIdentifier(name);
  }

  @Override
  public boolean isWrapperFor(Class<?> first) throws SQLException {
    return open().isWrapperFor(first);
  }

  @Override
  public void setArray(int index, Array value) throws SQLException {
    open().setArray(index, value);
  }

  @Override
  public void setAsciiStream(int index, InputStream value, int length) throws SQLException {
    open().setAsciiStream(index, value, length);
  }

  @Override
  public void setAsciiStream(int index, InputStream value, long length) throws SQLException {
    open().setAsciiStream(index, value, length);
  }

  @Override
  public void setAsciiStream(int index, InputStream value) throws SQLException {
    open().setAsciiStream(index, value);
  }

  @Override
  public void setBigDecimal(int index, BigDecimal value) throws SQLException {
    open().setBigDecimal(index, value);
  }

  @Override
  public void setBinaryStream(int index, InputStream value, int length) throws SQLException {
    open().setBinaryStream(index, value, length);
  }

  @Override
  public void setBinaryStream(int index, InputStream value, long length) throws SQLException {
    open().setBinaryStream(index, value, length);
  }

  @Override
  public void setBinaryStream(int index, InputStream value) throws SQLException {
    open().setBinaryStream(index, value);
  }

  @Override
  public void setBlob(int index, InputStream value, long length) throws SQLException {
    open().setBlob(index, value, length);
  }

  @Override
  public void setBlob(int index, InputStream value) throws SQLException {
    open().setBlob(index, value);
  }

  @Override
  public void setBlob(int index, Blob value) throws SQLException {
    open().setBlob(index, value);
  }

  @Override
  public void setBoolean(int index, boolean value) throws SQLException {
    open().setBoolean(index, value);
  }

  @Override
  public void setByte(int index, byte value) throws SQLException {
    open().setByte(index, value);
  }

  @Override
  public void setBytes(int index, byte[] value) throws SQLException {
    open().setBytes(index, value);
  }

  @Override
  public void setCharacterStream(int index, Reader value, int length) throws SQLException {
    open().setCharacterStream(index, value, length);
  }

  @Override
  public void setCharacterStream(int index, Reader value, long length) throws SQLException {
    open().setCharacterStream(index, value, length);
  }

  @Override
  public void setCharacterStream(int index, Reader value) throws SQLException {
    open().setCharacterStream(index, value);
  }

  @Override
  public void setClob(int index, Reader value, long length) throws SQLException {
    open().setClob(index, value, length);
  }

  @Override
  public void setClob(int index, Reader value) throws SQLException {
    open().setClob(index, value);
  }

  @Override
  public void setClob(int index, Clob value) throws SQLException {
    open().setClob(index, value);
  }

  @Override
  public void setCursorName(String name) throws SQLException {
    open().setCursorName(name);
  }

  @Override
  public void setDate(int index, Date value, Calendar calendar) throws SQLException {
    open().setDate(index, value, calendar);
  }

  @Override
  public void setDate(int index, Date value) throws SQLException {
    open().setDate(index, value);
  }

  @Override
  public void setDouble(int index, double value) throws SQLException {
    open().setDouble(index, value);
  }

  @Override
  public void setEscapeProcessing(boolean first) throws SQLException {
    open().setEscapeProcessing(first);
  }

  @Override
  public void setFetchDirection(int index) throws SQLException {
    open().setFetchDirection(index);
  }

  @Override
  public void setFetchSize(int index) throws SQLException {
    open().setFetchSize(index);
  }

  @Override
  public void setFloat(int index, float value) throws SQLException {
    open().setFloat(index, value);
  }

  @Override
  public void setInt(int index, int value) throws SQLException {
    open().setInt(index, value);
  }

  @Override
  public void setLargeMaxRows(long first) throws SQLException {
    open().setLargeMaxRows(first);
  }

  @Override
  public void setLong(int index, long value) throws SQLException {
    open().setLong(index, value);
  }

  @Override
  public void setMaxFieldSize(int index) throws SQLException {
    open().setMaxFieldSize(index);
  }

  @Override
  public void setMaxRows(int index) throws SQLException {
    open().setMaxRows(index);
  }

  @Override
  public void setNCharacterStream(int index, Reader value, long length) throws SQLException {
    open().setNCharacterStream(index, value, length);
  }

  @Override
  public void setNCharacterStream(int index, Reader value) throws SQLException {
    open().setNCharacterStream(index, value);
  }

  @Override
  public void setNClob(int index, Reader value, long length) throws SQLException {
    open().setNClob(index, value, length);
  }

  @Override
  public void setNClob(int index, Reader value) throws SQLException {
    open().setNClob(index, value);
  }

  @Override
  public void setNClob(int index, NClob value) throws SQLException {
    open().setNClob(index, value);
  }

  @Override
  public void setNString(int index, String value) throws SQLException {
    open().setNString(index, value);
  }

  @Override
  public void setNull(int index, int value, String third) throws SQLException {
    open().setNull(index, value, third);
  }

  @Override
  public void setNull(int index, int value) throws SQLException {
    open().setNull(index, value);
  }

  @Override
  public void setObject(int index, Object value, int length, int fourth) throws SQLException {
    open().setObject(index, value, length, fourth);
  }

  @Override
  public void setObject(int index, Object value, int length) throws SQLException {
    open().setObject(index, value, length);
  }

  @Override
  public void setObject(int index, Object value, SQLType third, int fourth) throws SQLException {
    open().setObject(index, value, third, fourth);
  }

  @Override
  public void setObject(int index, Object value, SQLType third) throws SQLException {
    open().setObject(index, value, third);
  }

  @Override
  public void setObject(int index, Object value) throws SQLException {
    open().setObject(index, value);
  }

  @Override
  public void setPoolable(boolean first) throws SQLException {
    open().setPoolable(first);
  }

  @Override
  public void setQueryTimeout(int index) throws SQLException {
    open().setQueryTimeout(index);
  }

  @Override
  public void setRef(int index, Ref value) throws SQLException {
    open().setRef(index, value);
  }

  @Override
  public void setRowId(int index, RowId value) throws SQLException {
    open().setRowId(index, value);
  }

  @Override
  public void setSQLXML(int index, SQLXML value) throws SQLException {
    open().setSQLXML(index, value);
  }

  @Override
  public void setShort(int index, short value) throws SQLException {
    open().setShort(index, value);
  }

  @Override
  public void setString(int index, String value) throws SQLException {
    open().setString(index, value);
  }

  @Override
  public void setTime(int index, Time value, Calendar calendar) throws SQLException {
    open().setTime(index, value, calendar);
  }

  @Override
  public void setTime(int index, Time value) throws SQLException {
    open().setTime(index, value);
  }

  @Override
  public void setTimestamp(int index, Timestamp value, Calendar calendar) throws SQLException {
    open().setTimestamp(index, value, calendar);
  }

  @Override
  public void setTimestamp(int index, Timestamp value) throws SQLException {
    open().setTimestamp(index, value);
  }

  @Override
  public void setURL(int index, URL value) throws SQLException {
    open().setURL(index, value);
  }

  @Override
  public void setUnicodeStream(int index, InputStream value, int length) throws SQLException {
    open().setUnicodeStream(index, value, length);
  }

  @Override
  public <T> T unwrap(Class<T> first) throws SQLException {
    return open().unwrap(first);
  }
}
