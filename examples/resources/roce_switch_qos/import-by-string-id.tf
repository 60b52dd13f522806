import {
  to = roce_switch_qos.leaf1
  id = "10.0.0.1:50051/ROCE/Ethernet0,Ethernet8"
}
