# shellcheck shell=bash
# Sourced by try_sway.sh and try_gnome.sh: the config of a private D-Bus daemon.

# bus_config TYPE SOCKET [activate]: a bus of TYPE (session or system) listening on the Unix
# socket SOCKET, open to every user (the desktop may run as a test user, the app as root),
# eavesdropping allowed (the scenes watch Notify calls); with "activate" it starts the installed
# session services asked for (dconf, the portals: GNOME needs them).
bus_config() {
    cat <<EOF_CONF
<busconfig>
  <type>$1</type>
  <listen>unix:path=$2</listen>
  <auth>EXTERNAL</auth>
  $([[ ${3:-} == activate ]] && echo "<standard_session_servicedirs/>")
  <policy context="default">
    <allow user="*"/><allow own="*"/><allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
EOF_CONF
}
