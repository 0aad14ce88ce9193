package io.anteroom.room;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * Names one minute of one counter: a data center's counter or the room's global <em>Anywhere</em>
 * counter. {@link #objectName()} is the durable-object name the counter lives under (one object per
 * data center and room, one Anywhere object per room); {@link #minute()} travels with each {@code
 * take} because numbers restart every minute.
 *
 * @param roomId the room
 * @param dataCenter the data center, or {@link #ANYWHERE}
 * @param minute the minute whose numbers are drawn
 */
public record CounterKey(String roomId, String dataCenter, long minute) {
  /** The scope name of the global Anywhere counter. */
  public static final String ANYWHERE = "*anywhere*";

  public static CounterKey dataCenter(String roomId, String dataCenter, long minute) {
    return new CounterKey(roomId, dataCenter, minute);
  }

  public static CounterKey anywhere(String roomId, long minute) {
    return new CounterKey(roomId, ANYWHERE, minute);
  }

  @JsonIgnore
  public boolean isAnywhere() {
    return ANYWHERE.equals(dataCenter);
  }

  /** The counter object's name: {@code room/dataCenter} or {@code room/*anywhere*}. */
  public String objectName() {
    return roomId + "/" + dataCenter;
  }
}
